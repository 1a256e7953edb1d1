"""Whole tournaments end to end: real programs, sandboxed, on the tournament's own server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from tournament_kit import CRASHING, arena_team, sandbox_mode, write_teams

from arena.tournament.cli import main
from arena.tournament.players import PLAYERS, load_teams
from server.competition.board import LogTail
from server.competition.dungeon import RunOptions, TournamentRun
from server.competition.dungeon_judge import judge

TEAMS = [
    {"name": "house", "builtin": "reference"},
    {"name": "ext", "dir": "ext", "command": arena_team("rusher")},
    {"name": "crashy", "dir": "crashy", "command": ["python3", "client.py", "{team}", "{token}"]},
]
PROGRAMS = {"ext": "", "crashy": CRASHING}


def read_results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


def test_a_small_tournament_with_a_crashing_program_runs_to_its_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three teams, one crashing: every match is played, the crashing team loses each of its
    matches with the reason recorded, the others' matches have logs and replay pages."""
    teams = write_teams(tmp_path, TEAMS, PROGRAMS)
    out = tmp_path / "out"
    code = main([str(teams), "--out", str(out), "--sandbox", sandbox_mode()])
    assert code == 0, capsys.readouterr().err
    data = read_results(out)
    assert data["complete"] is True
    matches = data["matches"]
    assert len(matches) == 3 * 2
    rows = {row["team"]: row for row in data["teams"]}
    assert rows["crashy"]["losses"] == 4
    assert rows["crashy"]["points"] == 0
    # Pre-flight (kept in: the default) found it first, then each match failed the same way.
    reasons = [f["reason"] for f in rows["crashy"]["failures"]]
    assert reasons == ["preflight"] + ["crashed"] * 4
    assert all("exit code 3" in f["detail"] for f in rows["crashy"]["failures"])
    assert data["preflight"]["ext"]["passed"] is True
    assert rows["house"]["failures"] == []
    assert rows["ext"]["failures"] == []
    assert rows["crashy"]["rank"] == 3
    for match in matches:
        if "crashy" in match["seats"]:
            assert match["winner"] == 1 - match["seats"].index("crashy")
            continue
        assert match["reason"] in {"shrine", "time", "forfeit"}
        assert (out / match["log"]).is_file()
        page = (out / match["replay"]).read_text()
        assert "Dungeon Arena replay" in page
        # The teams by name, and the way back.
        assert f'"players":["team 0: {match["seats"][0]}","team 1: {match["seats"][1]}"]' in page
        assert "../index.html" in page
    # The program's own output is kept, one file per team per match.
    crash_output = sorted((out / "programs").glob("t-0*-crashy.txt"))
    assert len(crash_output) == 4
    assert (out / "programs" / "t-preflight-crashy-crashy.txt").is_file()
    assert "starting, then failing" in crash_output[0].read_text()
    page = (out / "index.html").read_text()
    for match in matches:
        if match["replay"]:
            assert f"href='{match['replay']}'" in page
    assert "crashy" in page
    assert "data:image/png;base64," in page
    assert (out / "ratings.png").read_bytes().startswith(b"\x89PNG")
    pair = next(p for p in data["pairs"] if {p["a"], p["b"]} == {"house", "crashy"})
    assert pair["games"] == 2
    assert len(pair["ci95"]) == 2


def test_resume_after_an_interrupt_keeps_every_finished_match(tmp_path: Path) -> None:
    """Stopped after two matches, the run resumes with those two untouched and plays only the
    rest; the games (seats, seeds) are those of an uninterrupted run."""
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"},
                                    {"name": "rand", "builtin": "random"}])  # fmt: skip
    tournament = load_teams(teams)
    out = tmp_path / "out"

    async def interrupted() -> TournamentRun:
        with trio.CancelScope() as scope:
            finished = 0

            def status(_: str) -> None:
                nonlocal finished
                finished += 1
                if finished == 2:
                    scope.cancel()

            first = TournamentRun(
                tournament,
                RunOptions(out=out, concurrency=1, status=status, sandbox="none", players=PLAYERS),
            )
            await first.run()
        return first

    first = trio.run(interrupted)
    before = {index: dict(record) for index, record in first.records.items()}
    assert len(before) == 2
    journal = (out / "results.json.journal").read_text().splitlines()
    assert len(journal) == 1 + 2

    second = TournamentRun(
        tournament, RunOptions(out=out, resume=True, sandbox="none", players=PLAYERS)
    )
    trio.run(second.run)
    assert len(second.records) == 6
    for index, record in before.items():
        assert second.records[index] == record
    played_again = len(list((out / "logs").glob("*.jsonl*")))
    assert played_again == 6  # 2 before the interrupt + 4 after: none played twice
    fresh = TournamentRun(
        tournament, RunOptions(out=tmp_path / "fresh", sandbox="none", players=PLAYERS)
    )
    games = fresh.plan.next_games({})
    assert games is not None
    assert [(g.index, list(g.seats), g.seed) for g in games] == [
        (r["index"], r["seats"], r["seed"]) for _, r in sorted(second.records.items())
    ]


def test_resume_refuses_the_journal_of_another_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal written for other settings is refused, naming the field, not mixed in."""
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}])
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0
    write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}], seed=2)
    assert main([str(teams), "--out", str(out), "--resume", "--sandbox", "none"]) == 1
    err = capsys.readouterr().err
    assert "settings" in err
    assert "another run" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--concurrency", "0"], "--concurrency"),
        (["--web", "localhost:http"], "--web"),
    ],
)
def test_bad_options_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}])
    assert main([str(teams), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert needle in err


def test_an_unplayable_config_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teams = write_teams(
        tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}], config={"nodes": 20}
    )
    assert main([str(teams)]) == 2
    assert "tournament.config" in capsys.readouterr().err


def test_sandbox_none_warns_on_every_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}])
    assert main([str(teams), "--out", str(tmp_path / "o"), "--sandbox", "none"]) == 0
    assert "WARNING: --sandbox none" in capsys.readouterr().err


#: A strategy of one's own for a teams file's ``builtin = "mine.py:Copy"``.
RUSHER_COPY = """
from client.strategies.rusher import Rusher


class Copy(Rusher):
    pass
"""


def test_a_builtin_strategy_of_ones_own_plays_its_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A team given as builtin = "mine.py:Copy" (loaded by sim.plugins) plays every match of
    the tournament like a built-in team: no failures, results recorded."""
    (tmp_path / "mine.py").write_text(RUSHER_COPY)
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "mine", "builtin": "mine.py:Copy"}])
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0, capsys.readouterr()
    data = read_results(out)
    assert data["complete"] is True
    rows = {row["team"]: row for row in data["teams"]}
    assert rows["mine"]["played"] == 2
    assert rows["mine"]["failures"] == []
    assert all(match["reason"] in {"shrine", "time", "forfeit"} for match in data["matches"])


def test_a_broken_builtin_strategy_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A strategy file that fails to load is refused before anything runs: one line naming
    the teams file, the field and the cause."""
    (tmp_path / "mine.py").write_text("raise RuntimeError('half written')\n")
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "mine", "builtin": "mine.py:Copy"}])
    assert main([str(teams), "--out", str(tmp_path / "out"), "--sandbox", "none"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "teams.toml: team[1] (mine).builtin: " in err[0]
    assert "RuntimeError: half written" in err[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # (connected, winner, reason, faults, exits, crossings) -> points, reasons
        (((True, True), 0, "shrine", {}, ((None, False), (None, False)), (5, 5)),
         ((1.0, 0.0), [])),
        (((True, True), None, "time", {}, ((None, False), (None, False)), (5, 0)),
         ((1.0, 0.0), ["hung"])),
        (((True, True), None, "time", {}, ((None, False), (None, False)), (0, 0)),
         ((0.0, 0.0), ["hung", "hung"])),
        (((True, True), 0, "forfeit", {}, ((None, False), ("exit code 1", True)), (5, 5)),
         ((1.0, 0.0), ["crashed"])),
        (((True, True), 1, "forfeit", {}, (("exit code 0", False), (None, False)), (5, 5)),
         ((0.0, 1.0), ["disconnected"])),
        (((True, True), 1, "shrine", {1: "line too long"}, ((None, False), (None, False)), (5, 5)),
         ((1.0, 0.0), ["protocol_error"])),
        (((True, False), None, None, {}, ((None, False), (None, False)), (0, 0)),
         ((1.0, 0.0), ["never_connected"])),
        # One cause, one reason, in the spec's order: the exit code wins over the fault.
        (((True, True), 0, "forfeit", {1: "not JSON"}, ((None, False), ("exit code 3", True)),
          (5, 5)), ((1.0, 0.0), ["crashed"])),
        (((True, True), 0, "forfeit", {}, ((None, False), ("killed by SIGXCPU", True)),
          (5, 5)), ((1.0, 0.0), ["sandbox_limit"])),
        (((False, True), None, None, {}, (("killed by SIGXFSZ", True), (None, False)), (0, 0)),
         ((0.0, 1.0), ["sandbox_limit"])),
    ],
)  # fmt: skip
def test_judging_a_match(case: tuple[Any, ...], expected: tuple[Any, ...]) -> None:
    """Who failed how decides the points, whatever the game said."""
    connected, winner, reason, faults, exits, crossings = case
    points, failures, _ = judge(
        connected=connected, winner=winner, reason=reason, faults=faults, exits=exits,
        crossings=crossings, match_seconds=5,
    )  # fmt: skip
    assert (points, [f["reason"] for f in failures]) == expected


def test_the_example_teams_file_is_valid(tmp_path: Path) -> None:
    """docs/examples/teams.toml is accepted as it stands, once its team folders exist."""
    example = Path(__file__).parent.parent / "docs" / "examples" / "teams.toml"
    copy = tmp_path / "teams.toml"
    copy.write_text(example.read_text())
    for name in ("alpha", "bravo", "charlie"):
        (tmp_path / "teams" / name).mkdir(parents=True)
    tournament = load_teams(copy)
    assert tournament.names == ["alpha", "bravo", "charlie", "house"]
    assert tournament.teams[0].command[-1] == "{token}"


@pytest.mark.parametrize("form", ["knockout", "swiss"])
def test_knockout_and_swiss_tournaments_run_to_their_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """A knockout ends with a bracket and a champion on the page; a swiss plays its rounds
    without a repeated pairing."""
    builtins = [("a", "reference"), ("b", "rusher"), ("c", "reference"), ("d", "rusher")]
    teams = write_teams(
        tmp_path, [{"name": n, "builtin": s} for n, s in builtins], format=form, rounds=2
    )
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0, capsys.readouterr()
    data = read_results(out)
    assert data["complete"] is True
    if form == "knockout":
        assert [len(ties) for ties in data["bracket"]] == [2, 1]
        final = data["bracket"][1][0]
        assert data["champion"] == final["winner"]
        assert {final["a"], final["b"]} == {tie["winner"] for tie in data["bracket"][0]}
        assert len(data["matches"]) == 3 * 2
        page = (out / "index.html").read_text()
        assert "id=bracket" in page
        assert "champion" in page
    else:
        assert len(data["matches"]) == 2 * 2 * 2
        pairs = [frozenset(m["seats"]) for m in data["matches"]]
        assert all(pairs.count(pair) == 2 for pair in pairs)
        assert {m["round"] for m in data["matches"]} == {1, 2}


def test_without_a_working_sandbox_the_run_is_refused_unless_sandbox_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where bubblewrap cannot run, external programs are not started unconfined by default:
    the run stops with one line saying why and what to do."""
    import server.sandbox

    monkeypatch.setattr(server.sandbox, "check_available", lambda: "bwrap is not installed")
    teams = write_teams(tmp_path, TEAMS[:2], PROGRAMS)
    assert main([str(teams), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert "cannot sandbox the programs: bwrap is not installed" in err
    assert "--sandbox none" in err
    assert not (tmp_path / "out" / "results.json").exists()


#: Connects its six sockets, reads the match's first line, then dies with exit code 3.
EXITS_MID_MATCH = r"""
import json, os, socket, sys
host, port, team, match, token = sys.argv[1:6]
sockets = []
for agent in range(6):
    s = socket.create_connection((host, int(port)))
    s.sendall((json.dumps({"type": "start", "team": int(team), "agent": agent, "match": match,
                           "token": token}) + "\n").encode())
    sockets.append(s)
sockets[0].recv(100)
print("leaving with exit code 3", flush=True)
os._exit(3)
"""


def test_a_program_that_exits_3_mid_match_is_crashed_in_every_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One cause, one reason: a program whose sockets close because it exits with code 3 is
    "crashed (exit code 3)" in each of its matches, never "disconnected" (its sockets close a
    moment before the sandbox reports its exit)."""
    command = ["python3", "client.py", "{host}", "{port}", "{team}", "{match}", "{token}"]
    quitter = {"name": "quitter", "dir": "quitter", "command": command}
    teams = write_teams(
        tmp_path, [TEAMS[0], quitter], {"quitter": EXITS_MID_MATCH}, games_per_pair=6
    )
    out = tmp_path / "out"
    argv = ["--out", str(out), "--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([str(teams), *argv]) == 0, capsys.readouterr().err
    data = read_results(out)
    failures = next(row["failures"] for row in data["teams"] if row["team"] == "quitter")
    assert len(failures) == 6
    assert [f["reason"] for f in failures] == ["crashed"] * 6
    assert all("exit code 3" in f["detail"] for f in failures)


async def test_results_are_written_when_the_last_match_ends_while_the_page_stays_up(
    tmp_path: Path,
) -> None:
    """With --web the page stays up after the run, and results.json, results.csv and
    index.html are already written by then: no Ctrl-C needed; the board says finished."""
    from arena.tournament.cli import _main

    teams = [{"name": "house", "builtin": "reference"}, {"name": "rush", "builtin": "rusher"}]
    tournament = load_teams(write_teams(tmp_path, teams))
    out = tmp_path / "out"
    runner = TournamentRun(
        tournament, RunOptions(out=out, concurrency=1, sandbox="none", players=PLAYERS)
    )
    runner.open_journal()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_main, runner, ("127.0.0.1", 0))
        version = 0
        while not runner.board.finished:
            version = await runner.board.changed(version)
        for name in ("results.json", "results.csv", "index.html"):
            assert (out / name).is_file(), name
        assert read_results(out)["complete"] is True
        assert runner.board.snapshot()["finished"] is True
        # Each finished match shows the crossings and deaths its log holds (the board takes
        # them from the match's summary rather than reading the log again).
        rows = {row["name"]: row for row in runner.board.snapshot()["matches"]}
        for match in read_results(out)["matches"]:
            tail = LogTail(out / match["log"])
            tail.update()
            assert rows[match["name"]]["crossings"] == tail.crossings == match["crossings"]
            assert rows[match["name"]]["deaths"] == tail.deaths == match["deaths"]
        assert any(sum(row["crossings"]) for row in rows.values())
        nursery.cancel_scope.cancel()


async def test_the_live_standings_are_there_before_the_first_match_ends(tmp_path: Path) -> None:
    """The live page's standings are on the board from the start (every team, nothing played),
    not only once a match has ended."""
    from arena.tournament.cli import _main

    teams = [{"name": "house", "builtin": "reference"}, {"name": "rush", "builtin": "rusher"}]
    runner = TournamentRun(
        load_teams(write_teams(tmp_path, teams)),
        RunOptions(out=tmp_path / "out", concurrency=1, sandbox="none", players=PLAYERS),
    )
    runner.open_journal()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_main, runner, None)
        version = 0
        while not any(m.status == "running" for m in runner.board.matches.values()):
            version = await runner.board.changed(version)
        table = runner.board.snapshot()["standings"]
        assert table is not None
        assert sorted(row["team"] for row in table) == ["house", "rush"]
        nursery.cancel_scope.cancel()


def test_a_result_is_worded_by_who_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "house wins; crashy lost: crashed", never "house wins (crashed)" (which reads as if the
    winner crashed); the CSV counts the failure under its reason."""
    teams = write_teams(tmp_path, [TEAMS[0], TEAMS[2]], PROGRAMS)
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", sandbox_mode()]) == 0
    for match in read_results(out)["matches"]:
        assert match["result"] == "house wins; crashy lost: crashed"
    rows = (out / "results.csv").read_text().splitlines()
    header = rows[0].split(",")
    crashy = dict(zip(header, next(r for r in rows if ",crashy," in r).split(","), strict=True))
    assert crashy["crashed"] == "2"
    assert crashy["losses"] == "2"


def test_a_late_team_plays_its_matches_only_and_keeps_every_other_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--add TEAM: the journal learns the team, only its matches are played, every earlier
    match keeps its index and result; without --add the grown file is refused, naming it."""
    two = [TEAMS[0], {"name": "rush", "builtin": "rusher"}]
    teams = write_teams(tmp_path, two)
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0
    before = {m["index"]: m for m in read_results(out)["matches"]}
    write_teams(tmp_path, [*two, {"name": "late", "builtin": "rusher"}])
    assert main([str(teams), "--out", str(out), "--resume", "--sandbox", "none"]) == 1
    assert "--add" in capsys.readouterr().err
    assert main([str(teams), "--out", str(out), "--add", "late", "--sandbox", "none"]) == 0
    after = {m["index"]: m for m in read_results(out)["matches"]}
    assert len(after) == 6
    for index, match in before.items():
        assert after[index] == match
    assert all("late" in m["seats"] for i, m in after.items() if i not in before)
    assert {r["team"] for r in read_results(out)["teams"]} == {"house", "rush", "late"}
    # Journaled: a later resume knows the team and plays nothing more.
    assert main([str(teams), "--out", str(out), "--resume", "--sandbox", "none"]) == 0
    assert {m["index"]: m for m in read_results(out)["matches"]} == after


def test_a_disputed_match_is_rerun_alone_and_shown_as_replaced(tmp_path: Path) -> None:
    """--rerun MATCH --why TEXT: that match is played again, its new record says what it
    replaced and why (the old line stays in the journal), every other match is untouched."""
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}])
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0
    before = {m["name"]: m for m in read_results(out)["matches"]}
    argv = ["--rerun", "t-0001", "--why", "the machine was overloaded", "--sandbox", "none"]
    assert main([str(teams), "--out", str(out), *argv]) == 0
    after = {m["name"]: m for m in read_results(out)["matches"]}
    assert after["t-0000"] == before["t-0000"]
    replaced = after["t-0001"]["replaces"]
    assert replaced["why"] == "the machine was overloaded"
    assert replaced["result"] == before["t-0001"]["result"]
    journal = (out / "results.json.journal").read_text().splitlines()
    assert sum(1 for line in journal if '"name": "t-0001"' in line) == 2
    assert "the machine was overloaded" in (out / "index.html").read_text()
    assert main([str(teams), "--out", str(out), "--rerun", "t-9999", "--sandbox", "none"]) == 1


def test_a_rerun_without_a_run_is_one_line_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--rerun in a folder no run wrote: exit 1, one line naming the journal, no journal
    left behind (a first run there still starts)."""
    teams = write_teams(tmp_path, [TEAMS[0], {"name": "rush", "builtin": "rusher"}])
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--rerun", "t-0000", "--sandbox", "none"]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (out / "results.json.journal").exists()
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0


@pytest.mark.parametrize(
    ("exit_text", "expected"),
    [
        ("killed by SIGXCPU", "sandbox_limit"),
        ("killed by SIGXFSZ", "sandbox_limit"),
        ("exit code 3", "crashed"),
        ("killed by SIGSEGV", "crashed"),
        (None, "crashed"),
    ],
)
def test_a_failed_program_is_crashed_unless_a_limits_signal_ended_it(
    exit_text: str | None, expected: str
) -> None:
    """The one rule every game's judging applies to a program that ended with a failure."""
    from server.competition.reasons import failed_kind

    assert failed_kind(exit_text) == expected


#: Writes past its output's file size before it connects: the kernel's SIGXFSZ ends it (as it
#: ends a C program; Python ignores the signal unless told not to).
FLOODING = (
    "import signal, sys\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
    "sys.stdout.write('x' * (17 << 20))\nsys.stdout.flush()\n"
)


#: Asks for more memory than the sandbox's 1 GiB address space, before it connects.
GREEDY = "block = bytearray(3 << 30)\n"


def _against_the_house(tmp_path: Path, name: str, source: str) -> dict[str, dict[str, Any]]:
    """The results' rows of two matches of the program ``source`` (team ``name``) against the
    built-in reference team."""
    teams = [
        {"name": "house", "builtin": "reference"},
        {"name": name, "dir": name, "command": ["python3", "client.py"]},
    ]
    path = write_teams(tmp_path, teams, {name: source})
    out = tmp_path / "out"
    argv = ["--out", str(out), "--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([str(path), *argv]) == 0
    return {row["team"]: row for row in read_results(out)["teams"]}


def test_a_program_past_its_output_limit_loses_with_sandbox_limit(tmp_path: Path) -> None:
    """A dungeon program that writes more than its 16 MiB of output is ended by the sandbox's
    limit and loses each match with sandbox_limit, as in every game."""
    rows = _against_the_house(tmp_path, "flood", FLOODING)
    assert [f["reason"] for f in rows["flood"]["failures"]] == ["sandbox_limit"] * 2
    assert all("SIGXFSZ" in f["detail"] for f in rows["flood"]["failures"])
    assert rows["house"]["wins"] == 2


def test_a_program_past_its_memory_limit_loses_with_sandbox_limit(tmp_path: Path) -> None:
    """The memory limit sends no signal: the program's own MemoryError names it, and it loses
    each match with sandbox_limit, naming memory."""
    rows = _against_the_house(tmp_path, "greedy", GREEDY)
    assert [f["reason"] for f in rows["greedy"]["failures"]] == ["sandbox_limit"] * 2
    assert all("memory limit" in f["detail"] for f in rows["greedy"]["failures"])
    assert rows["house"]["wins"] == 2
