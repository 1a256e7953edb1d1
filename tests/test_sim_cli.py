"""`arena sim` end to end: files written, exit statuses, and refusals naming their cause."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.sim import main
from sim.games import GAMES


@pytest.fixture(autouse=True)
def race_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "race", "sim_tiny_game:RaceGame")


def sim(*args: str) -> int:
    return main(["race", "--strategies", "greedy,random", "--quiet", *args])


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_results_file_has_the_schema_and_the_same_bytes_for_any_workers(tmp_path: Path) -> None:
    """--out writes the documented keys, identical apart from "timing" for 1 and 2 workers."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert sim("--matches", "20", "--seed", "4", "--workers", "1", "--out", str(one)) == 0
    assert sim("--matches", "20", "--seed", "4", "--workers", "2", "--out", str(two)) == 0
    first, second = load(one), load(two)
    assert {"game", "seed", "matches", "failed", "pairings", "timing"} <= set(first)
    pairing = first["pairings"][0]
    for key in ("a", "b", "games", "wins", "draws", "losses", "win_rate", "ci95", "elo"):
        assert key in pairing
    assert len(pairing["elo_ci95"]) == 2
    assert (first["game"], first["seed"], first["matches"]) == ("race", 4, 20)
    first.pop("timing")
    second.pop("timing")
    assert json.dumps(first) == json.dumps(second)


def test_plot_is_a_png(tmp_path: Path) -> None:
    """--plot writes a PNG image."""
    plot = tmp_path / "plot.png"
    assert sim("--matches", "6", "--workers", "1", "--plot", str(plot)) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_resume_of_a_finished_run_plays_nothing_and_reports_the_same(tmp_path: Path) -> None:
    """--resume over a complete journal rewrites the same results without playing again."""
    out = tmp_path / "r.json"
    assert sim("--matches", "10", "--workers", "1", "--out", str(out)) == 0
    before = load(out)
    assert sim("--matches", "10", "--workers", "1", "--out", str(out), "--resume") == 0
    after = load(out)
    assert after["timing"]["played"] == 0
    assert after["timing"]["resumed"] == 10
    before.pop("timing")
    after.pop("timing")
    assert before == after


@pytest.mark.parametrize(
    ("args", "cause"),
    [
        (["--strategies", "greedy,nobody"], "unknown race strategies: nobody"),
        (["--config", "colour=blue"], "colour"),
        (["--config", "target"], "KEY=VALUE"),
        (["--sprt", "elo0=x"], "not a number"),
        (["--sprt", "elo2=3"], "KEY=NUMBER"),
        (["--resume"], "--resume needs --out"),
        (["--backend", "dask"], "--scheduler"),
        (["--workers", "0"], "at least 1"),
        (["--matches", "0"], "--matches"),
        (["--strategies", "greedy,random,raiser", "--sprt", "elo1=10"], "exactly two"),
        (["--logs", "somewhere"], "does not write match logs"),
        (["--compact-logs"], "--compact-logs and --log-format go with --logs, for the dungeon"),
        (["--config", "target=abc"], "--config target='abc': expected an integer"),
        (["--config", "target=2.5"], "--config target=2.5: expected an integer"),
        (["--config", "target=true"], "--config target=True: expected an integer"),
        (["--config", "laps=3"], "--config laps: race has no such option; known: target, trap"),
    ],
)
def test_bad_usage_exits_2_naming_the_cause(
    args: list[str], cause: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad flags or values exit with status 2 and a message on stderr that names them."""
    assert sim(*args) == 2
    assert cause in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "target", "cause"),
    [
        ("--out", "a_file/r.json", "--out: cannot make the directory"),
        ("--out", "a_directory", "--out"),
        ("--plot", "a_file/p.png", "--plot: cannot make the directory"),
        ("--plot", "a_directory", "is a directory"),
    ],
)
def test_unwritable_output_paths_are_refused_before_the_run(
    flag: str, target: str, cause: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An --out or --plot that cannot be written exits 2 naming it, before any match is played."""
    (tmp_path / "a_file").write_text("")
    (tmp_path / "a_directory").mkdir()
    assert sim("--matches", "4", "--workers", "1", flag, str(tmp_path / target)) == 2
    assert cause in capsys.readouterr().err
    assert not list(tmp_path.glob("**/*.journal"))


def test_a_negative_timeout_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """--timeout -1 exits 2 (0 means no limit) instead of failing every match."""
    assert sim("--matches", "4", "--workers", "1", "--timeout", "-1") == 2
    assert "--timeout" in capsys.readouterr().err


def test_a_fresh_run_refuses_to_overwrite_an_earlier_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Running again without --resume keeps the earlier journal and says how to continue."""
    out = tmp_path / "r.json"
    assert sim("--matches", "4", "--workers", "1", "--out", str(out)) == 0
    journal = out.with_name("r.json.journal")
    kept = journal.read_text()
    assert sim("--matches", "4", "--workers", "1", "--out", str(out)) == 2
    assert "--resume" in capsys.readouterr().err
    assert journal.read_text() == kept


def test_dungeon_logs_one_match_log_per_match(tmp_path: Path) -> None:
    """--logs DIR writes one complete match log for each match played."""
    logs = tmp_path / "logs"
    status = main(
        [
            "dungeon",
            "--strategies",
            "rusher,random",
            "--matches",
            "2",
            "--workers",
            "1",
            "--quiet",
            "--config",
            "nodes=300",
            "radius=0.1",
            "draw_steps=5",
            "--logs",
            str(logs),
        ]
    )
    assert status == 0
    written = sorted(p.name for p in logs.iterdir())
    assert len(written) == 2
    assert all(name.startswith("dungeon-") and name.endswith(".jsonl.gz") for name in written)


def test_a_four_seat_table_may_seat_one_strategy_twice(tmp_path: Path) -> None:
    """`arena sim fish --strategies minimax2,greedy,random,random` (the issue's own example)
    plays that table and compares the three distinct strategies pairwise, once each."""
    out = tmp_path / "fish.json"
    argv = ["fish", "--strategies", "minimax2,greedy,random,random", "--matches", "8"]
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(out)]) == 0
    report = load(out)
    pairs = [(p["a"], p["b"]) for p in report["pairings"]]
    assert pairs == [("minimax2", "greedy"), ("minimax2", "random"), ("greedy", "random")]
    assert [team["strategy"] for team in report["teams"]] == ["minimax2", "greedy", "random"]
    assert all(p["games"] == report["games"] for p in report["pairings"])
    assert [r["strategy"] for r in report["ratings"]].count("random") == 1


def test_a_round_robin_may_not_repeat_a_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    """In a two-seat game a repeated name is a mistake: exit 2 saying why."""
    assert main(["race", "--strategies", "greedy,random,greedy", "--quiet"]) == 2
    assert "entered twice" in capsys.readouterr().err


def test_a_backend_that_cannot_start_exits_1_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OSError from the backend (say, no Dask scheduler there) is one line and status 1."""
    from sim.backends import LocalBackend

    def unreachable(self: object, tasks: object) -> None:
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 20 s")

    monkeypatch.setattr(LocalBackend, "run", unreachable)
    assert sim("--matches", "4", "--workers", "1") == 1
    err = capsys.readouterr().err
    assert "arena sim: the run failed: Timed out trying to connect" in err
    assert "Traceback" not in err


def test_resume_without_a_journal_starts_the_run_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--resume on a run that never started plays it all, and warns that no journal was found
    (a mistyped --out must not go unnoticed)."""
    out = tmp_path / "r.json"
    assert sim("--matches", "4", "--workers", "1", "--out", str(out), "--resume") == 0
    assert "no journal" in capsys.readouterr().err
    assert load(out)["games"] == 4


def test_compact_logs_write_the_map_once_and_verify(tmp_path: Path) -> None:
    """--compact-logs: each log holds the map once, not twelve times, and verifies as it is."""
    from replay.matchlog import read_log
    from replay.rerun import verify_log

    sizes = {}
    for kind, extra in (("full", ["--log-format", "full"]), ("compact", ["--compact-logs"])):
        logs = tmp_path / kind
        argv = ["dungeon", "--strategies", "rusher,random", "--matches", "2", "--workers", "1"]
        argv += ["--quiet", "--config", "draw_steps=5", "--logs", str(logs), *extra]
        assert main(argv) == 0
        paths = sorted(logs.iterdir())
        sizes[kind] = sum(path.stat().st_size for path in paths)
        for path in paths:
            assert verify_log(read_log(path)).ok
            text = path.read_text()
            assert text.count('"nodes":[[') == (1 if kind == "compact" else 12)
    assert sizes["full"] - sizes["compact"] > 2 * 11 * 50_000  # two logs, eleven maps each
