"""The Penguins game master: it runs programs in turn, judges every call against the board
before it, disqualifies cheats and failures, and goes on without them.

Programs here are functions behind a fake runner (the master's only contact with processes), so
timeouts and crashes need no real time; the honest program is the real player's ``main``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arena.penguins import master_main
from client import penguins as player
from floes import MOVEMENT, PLACEMENT
from protocol.penguins import parse
from replay.games import read_events
from server.penguins.folder import FOLDER_FILES, empty_folder
from server.penguins.master import (
    Outcome,
    Program,
    judge,
    legal_action_exists,
    ranking,
    run_game,
)
from server.sandbox import check_available

#: The sandbox where it runs here, else none (tests/test_sandbox.py says why not).
SANDBOX = ["--sandbox", "bwrap" if check_available() is None else "none"]

START = "3 4\n10 20 10 30\n20 10 30 10\n10 30 20 10\n"

Behaviour = Callable[[list[str], Path], Outcome]


def honest(argv: list[str], cwd: Path) -> Outcome:
    """The real player program, in-process, on the files of its working directory."""
    args = [str(cwd / a) if a == "board.txt" else a for a in argv[1:]]
    return Outcome(player.main(args))


def cheater(change: Callable[[str], str], when: str = MOVEMENT) -> Behaviour:
    """Plays honestly, except that in phase ``when`` it rewrites the board with ``change``."""

    def behave(argv: list[str], cwd: Path) -> Outcome:
        if f"phase={when}" not in argv:
            return honest(argv, cwd)
        board = cwd / "board.txt"
        board.write_text(change(board.read_text()))
        return Outcome(0)

    return behave


def steal(text: str) -> str:
    """Adds 5 fish to the first player's score."""
    lines = text.split("\n")
    rows = int(lines[0].split()[0])
    ident, number, score = lines[rows + 1].split()
    lines[rows + 1] = f"{ident} {number} {int(score) + 5}"
    return "\n".join(lines)


def teleport(text: str) -> str:
    """Moves its penguin to the farthest floe with fish, wherever that is."""
    board = parse(text)
    me = board.players[-1]
    src = board.owner.index(me.number)
    dst = max(t for t, f in enumerate(board.fish) if f)
    gained = board.fish[dst]
    board.owner[src], board.owner[dst], board.fish[dst] = 0, me.number, 0
    me.score += gained
    return board.render()


def runner_of(behaviours: dict[str, Behaviour], calls: list[list[str]]) -> Callable[..., Outcome]:
    def run(argv: Sequence[str], cwd: Path, timeout: float) -> Outcome:
        calls.append(list(argv))
        return behaviours[argv[0]](list(argv), cwd)

    return run


def play(
    tmp_path: Path, behaviours: dict[str, Behaviour], penguins: int = 2
) -> tuple[list[Program], str, list[dict[str, object]], list[list[str]]]:
    programs = []
    for index, name in enumerate(behaviours, start=1):
        directory = tmp_path / f"player{index}"
        directory.mkdir(exist_ok=True)
        programs.append(Program([name, f"id={name}"], name=name, directory=directory))
    log: list[dict[str, object]] = []
    calls: list[list[str]] = []
    final = run_game(programs, parse(START), penguins, log.append, runner_of(behaviours, calls))
    return programs, final.render(), log, calls


def test_honest_game_runs_to_the_end(tmp_path: Path) -> None:
    """Two honest programs place, move until both return 1 in a round, and are ranked."""
    programs, final, log, calls = play(tmp_path, {"a": honest, "b": honest})
    assert [p.disqualified for p in programs] == [None, None]
    board = parse(final)
    assert sorted(board.owner.count(n) for n in (1, 2)) == [2, 2]
    assert not any(legal_action_exists(board, name, MOVEMENT, 2) for name in "ab")
    # The last round of each phase is all exit 1; the first call places with penguins=2.
    assert calls[0] == ["a", "id=a", "phase=placement", "penguins=2", "board.txt", "board.txt"]
    assert [e["verdict"] for e in log[-2:]] == ["cannot_move", "cannot_move"]
    assert sum(board.fish) + sum(p.score for p in board.players) == sum(parse(START).fish)
    places = ranking(programs, board)
    assert places[0][2] >= places[1][2]


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        (cheater(steal), "changed the score of 'a'"),
        (cheater(teleport), "not in a straight free line"),
        (cheater(lambda text: "hello\n"), "malformed board file: line 1"),
        (cheater(lambda text: text + "z 9 " + "9" * 5000 + "\n"), "malformed board file"),
        (cheater(lambda text: text), "changed 0 fields"),
        (cheater(lambda text: text.replace("10", "11", 1), PLACEMENT), "malformed"),
        (lambda argv, cwd: Outcome(1), "exit 1 (cannot move) while a legal move existed"),
        (lambda argv, cwd: Outcome(3, stderr="boom"), "exit code 3 (error)"),
        (lambda argv, cwd: Outcome(2), "exit code 2 (bad input)"),
        (lambda argv, cwd: Outcome(None, timed_out=True), "timed out after 2 s"),
        (lambda argv, cwd: Outcome(None, "SIGSEGV"), "crashed: killed by SIGSEGV"),
    ],
)
def test_cheats_and_failures_disqualify_and_the_game_goes_on(
    tmp_path: Path, behaviour: Behaviour, reason: str
) -> None:
    """A program that breaks the rules or fails is disqualified, its write is discarded, and the
    other program plays on to the end."""
    programs, final, log, _ = play(tmp_path, {"a": honest, "b": behaviour})
    assert programs[0].disqualified is None
    assert programs[1].disqualified is not None
    assert reason in programs[1].disqualified
    board = parse(final)
    assert not legal_action_exists(board, "a", MOVEMENT, 2)
    assert sum(board.fish) + sum(p.score for p in board.players) == sum(parse(START).fish)
    assert any(e.get("verdict") == "disqualified" and e["player"] == "b" for e in log)
    assert ranking(programs, board)[-1][0] is None  # the disqualified have no place


def rewrites_on_exit_1(change: Callable[[str], str]) -> Behaviour:
    """Plays honestly, but whenever it cannot move it writes the board back through ``change``
    before returning 1, as a program that always saves its output does."""

    def behave(argv: list[str], cwd: Path) -> Outcome:
        outcome = honest(argv, cwd)
        if outcome.code == 1:
            board = cwd / "board.txt"
            board.write_bytes(change(board.read_text()).encode())
        return outcome

    return behave


def relayout(text: str) -> str:
    """The same board in another conforming layout: CRLF and trailing spaces on every line."""
    return "".join(line + "   \r\n" for line in text.split("\n")[:-1])


def test_exit_1_with_the_same_board_in_another_layout_is_no_fault(tmp_path: Path) -> None:
    """Spec: "any line may end with any number of spaces; accept \\r\\n too", and the master
    disqualifies for a changed field or score or a malformed file. A program that returns 1
    after writing back the same position in such a layout breaks none of these rules."""
    programs, final, log, _ = play(tmp_path, {"a": honest, "b": rewrites_on_exit_1(relayout)})
    assert [p.disqualified for p in programs] == [None, None]
    assert [e["verdict"] for e in log[-2:]] == ["cannot_move", "cannot_move"]
    assert not legal_action_exists(parse(final), "b", MOVEMENT, 2)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (steal, "exit 1 (cannot move) but it changed the board"),
        (lambda text: text.replace(" ", "  ", 1), "exit 1 (cannot move) but it left a malformed"),
    ],
)
def test_exit_1_with_a_changed_or_malformed_board_disqualifies(
    tmp_path: Path, change: Callable[[str], str], reason: str
) -> None:
    """Spec: a changed score of someone else or a malformed file disqualifies, whatever the exit
    code; the game goes on from the board before the call."""
    programs, final, _, _ = play(tmp_path, {"a": honest, "b": rewrites_on_exit_1(change)})
    assert programs[0].disqualified is None
    assert programs[1].disqualified is not None
    assert programs[1].disqualified.startswith(reason)
    board = parse(final)
    assert sum(board.fish) + sum(p.score for p in board.players) == sum(parse(START).fish)


@pytest.mark.parametrize(
    "leave",
    [
        lambda path: path.mkdir(),
        lambda path: path.write_bytes(b"1 1\n10\n" + b" " * (1 << 20)),
        lambda path: path.symlink_to(path.parent / "elsewhere.txt"),
    ],
    ids=["directory", "over 1 MiB", "link"],
)
def test_exit_1_leaving_something_else_than_a_board_file_disqualifies(
    tmp_path: Path, leave: Callable[[Path], object]
) -> None:
    """Spec: a malformed file disqualifies, whatever the exit code. A program that returns 1
    after putting a directory, a file too big to read or a link where its board file was is
    disqualified at that call, and the other plays on to the end."""

    def leave_something(argv: list[str], cwd: Path) -> Outcome:
        outcome = honest(argv, cwd)
        if outcome.code == 1:
            (cwd / "board.txt").unlink()
            leave(cwd / "board.txt")
        return outcome

    programs, final, _, _ = play(tmp_path, {"a": honest, "b": leave_something})
    assert programs[0].disqualified is None
    assert programs[1].disqualified is not None
    assert "exit 1 (cannot move) but it left a board file that is not a regular file" in (
        programs[1].disqualified
    )
    assert not legal_action_exists(parse(final), "a", MOVEMENT, 2)


def test_a_programs_folder_lasts_the_whole_game(tmp_path: Path) -> None:
    """Spec: the private folder lasts the whole game. A program that notes its identity in a
    file on its first call finds the file on every later call, and plays cleanly."""
    seen: list[list[str]] = []

    def remember(argv: list[str], cwd: Path) -> Outcome:
        seen.append(sorted(os.listdir(cwd)))
        (cwd / "me.txt").write_text("b\n")
        return honest(argv, cwd)

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": remember})
    assert [p.disqualified for p in programs] == [None, None]
    assert seen[0] == ["board.txt"]
    assert len(seen) > 2
    assert all(names == ["board.txt", "me.txt"] for names in seen[1:])


def test_a_folder_grown_past_its_bound_disqualifies_as_a_sandbox_limit(tmp_path: Path) -> None:
    """A program whose folder holds more files than the bound is disqualified (sandbox_limit);
    the other plays on."""

    def hoard(argv: list[str], cwd: Path) -> Outcome:
        for index in range(FOLDER_FILES + 1):
            (cwd / f"junk{index}").touch()
        return honest(argv, cwd)

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": hoard})
    assert programs[0].disqualified is None
    assert programs[1].kind == "sandbox_limit"
    assert "files" in str(programs[1].disqualified)


def nest(cwd: Path, depth: int, name: str) -> None:
    """Folders ``name`` inside each other ``depth`` deep (made relative to each, as a program
    can, however long the whole path grows)."""
    parent = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=parent)
        child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=parent)
        os.close(parent)
        parent = child
    os.close(parent)


def test_a_nest_whose_path_outgrows_the_system_is_measured_and_emptied(tmp_path: Path) -> None:
    """Twenty folders of 250-character names (a path past the system's 4096): the master
    measures and later empties the folder by descriptors, never by its whole path, so the
    program keeps playing (its folder is within bounds) and the master does not crash."""

    def deep(argv: list[str], cwd: Path) -> Outcome:
        if not (cwd / ("n" * 250)).exists():
            nest(cwd, 20, "n" * 250)
        return honest(argv, cwd)

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": deep})
    assert [p.disqualified for p in programs] == [None, None]
    empty_folder(programs[1].directory)
    assert os.listdir(programs[1].directory) == []


def test_a_nest_deeper_than_the_bound_disqualifies_and_is_emptied(tmp_path: Path) -> None:
    """A folder nested 3000 deep: a sandbox limit (the master never holds a descriptor per
    level, nor recurses per level), the other program plays on, and the folder empties."""

    def deep(argv: list[str], cwd: Path) -> Outcome:
        nest(cwd, 3000, "d")
        return honest(argv, cwd)

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": deep})
    assert programs[0].disqualified is None
    assert programs[1].kind == "sandbox_limit"
    assert "deep" in str(programs[1].disqualified)
    empty_folder(programs[1].directory)
    assert os.listdir(programs[1].directory) == []


def test_a_leftover_board_directory_is_the_programs_own_fault(tmp_path: Path) -> None:
    """A program that leaves a directory where its board file goes is disqualified (no board
    file: a protocol error) and the game goes on without it."""

    def spoil(argv: list[str], cwd: Path) -> Outcome:
        outcome = honest(argv, cwd)
        (cwd / "board.txt").unlink()
        (cwd / "board.txt").mkdir()
        return outcome

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": spoil})
    assert programs[0].disqualified is None
    assert "board file is missing" in str(programs[1].disqualified)
    assert programs[1].kind == "protocol_error"


def test_a_planted_link_never_redirects_the_masters_writes(tmp_path: Path) -> None:
    """A program that replaces its board file by a link to another file is disqualified, and
    the master's next write replaces the link instead of writing through it."""
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")

    def plant(argv: list[str], cwd: Path) -> Outcome:
        board = cwd / "board.txt"
        board.unlink()
        board.symlink_to(secret)
        return Outcome(0)

    programs, _, _, _ = play(tmp_path, {"a": honest, "b": plant})
    assert programs[1].disqualified is not None
    assert "a link" in programs[1].disqualified
    assert secret.read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("after", "phase", "reason"),
    [
        ("3 4\n01 20 10 30\n20 10 30 10\n10 30 20 10\nx 1 1\n", PLACEMENT, None),
        ("3 4\n01 20 10 30\n20 10 30 10\n10 30 20 10\nx 1 2\n", PLACEMENT, "added 2"),
        ("3 4\n10 01 10 30\n20 10 30 10\n10 30 20 10\nx 1 2\n", PLACEMENT, "not a free floe"),
        ("3 4\n01 20 01 30\n20 10 30 10\n10 30 20 10\nx 1 2\n", PLACEMENT, "exactly one"),
        ("3 4\n01 20 10 30\n20 10 30 10\n10 30 20 10\ny 1 1\n", PLACEMENT, "its name is 'x'"),
        ("4 4\n01 20 10 30\n20 10 30 10\n10 30 20 10\n10 10 10 10\nx 1 1\n", PLACEMENT, "size"),
    ],
)
def test_judge_placements(after: str, phase: str, reason: str | None) -> None:
    """A placement must turn one free one-fish floe into the mover's penguin and add 1."""
    judged, description = judge(parse(START), after, "x", phase, 2)
    if reason is None:
        assert judged is not None
        assert "row 1, column 1" in description
    else:
        assert judged is None
        assert reason in description


#: y's penguin on the right; leftwards a 3, a 2, then a hole. x's penguin on the far left.
BEFORE_MOVE = "1 5\n01 00 20 30 02\nx 1 1\ny 2 1\n"


@pytest.mark.parametrize(
    ("after", "reason"),
    [
        ("1 5\n01 00 20 02 00\nx 1 1\ny 2 4\n", None),
        ("1 5\n01 00 02 30 00\nx 1 1\ny 2 3\n", None),
        ("1 5\n01 02 20 30 00\nx 1 1\ny 2 1\n", "not in a straight free line"),
        (
            "1 5\n01 00 02 30 00\nx 1 1\ny 2 4\n",
            "added 3 to its score, but the floe it landed on had 2",
        ),
        ("1 5\n01 00 02 30 00\nx 1 2\ny 2 3\n", "changed the score of 'x'"),
        ("1 5\n00 01 20 30 02\nx 1 1\ny 2 1\n", "not one of its penguins"),
        ("1 5\n01 00 20 30 02\nx 1 1\ny 2 1\n", "changed 0 fields"),
        ("1 5\n01 00 20 30 02\nx 1 1\n", "malformed board file: line 2, field 5"),
        # Outside the format though our own parser tolerates them: passed on, they could break
        # a conforming program that reads the file next.
        ("\ufeff1 5\n01 00 20 02 00\nx 1 1\ny 2 4\n", "malformed board file: line 1"),
        ("1 5\n01 00 20 02 00\t\nx 1 1\ny 2 4\n", "malformed board file: line 2"),
    ],
)
def test_judge_moves(after: str, reason: str | None) -> None:
    """A move must take the mover's own penguin along a free straight line, empty the floe it
    leaves, and add exactly the fish where it lands."""
    judged, description = judge(parse(BEFORE_MOVE), after, "y", MOVEMENT, 2)
    if reason is None:
        assert judged is not None
        assert "->" in description
    else:
        assert judged is None
        assert reason in description


def test_master_command_runs_real_programs(tmp_path: Path) -> None:
    """`arena penguins master` runs two real player processes to the end and prints a ranking,
    keeping a log line per call and the final board."""
    player_script = str(Path(sys.executable).parent / "penguins-player")
    arena = str(Path(sys.executable).parent / "arena")
    done = subprocess.run(
        [
            arena, "penguins", "master",
            "--player", f"{player_script} strategy=greedy id=g",
            "--player", f"{player_script} strategy=random id=r",
            "--rows", "3", "--cols", "4", "--penguins", "1", "--seed", "2",
            # Not the default 2 s a call: a player is a Python process (~0.15 s here), and a
            # loaded CI machine must not disqualify it; time limits are tested without processes.
            "--timeout", "60",
            "--workdir", str(tmp_path), *SANDBOX,
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("1. ")
    assert {"g", "r"} == {line.split()[1] for line in lines[:2]}
    assert "disqualified" not in done.stdout
    assert [e["event"] for e in read_events(tmp_path / "log.jsonl.gz")].count("call") >= 6
    final = parse((tmp_path / "board.txt").read_text())
    assert [p.ident for p in final.players] == ["g", "r"]


def test_a_board_with_a_latin1_id_is_logged_not_a_crash(tmp_path: Path) -> None:
    """Spec: an id is any non-space text, and nothing may crash the game master. A --board file
    whose id is latin-1 ("Zoé" as the single byte 0xE9) plays to the end; its log stays JSON
    that gives back the file's bytes, and the final board keeps the id's byte."""
    start = b"1 3\n10 10 30\nZo\xe9 1 0\n"
    board_path = tmp_path / "start.txt"
    board_path.write_bytes(start)
    player_script = str(Path(sys.executable).parent / "penguins-player")
    workdir = tmp_path / "game"
    code = master_main(
        [
            "--player", f"{player_script} strategy=greedy id=g",
            "--board", str(board_path), "--penguins", "1", "--workdir", str(workdir),
            *SANDBOX,
        ]
    )  # fmt: skip
    assert code == 0
    entries = read_events(workdir / "log.jsonl.gz")
    assert entries[0]["event"] == "start"
    assert str(entries[0]["board"]).encode("utf-8", "surrogateescape") == start
    assert entries[-1]["event"] == "end"
    # g places and moves; the line of Zoé (who plays no program here) comes back byte for byte.
    final = (workdir / "board.txt").read_bytes()
    assert b"Zo\xe9 1 0\n" in final
    assert not [e for e in entries if e.get("verdict") == "disqualified"]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--penguins", "0"], "--penguins"),
        (["--penguins", "-2"], "--penguins"),
    ],
)
def test_bad_master_options_exit_2_naming_the_flag(
    tmp_path: Path, options: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A time limit per call must be positive (0 would time out every program, as if each had
    failed) and each player has at least one penguin: the master refuses before running any
    program, with exit 2 and the flag named, instead of disqualifying everyone or a traceback."""
    workdir = tmp_path / "game"
    with pytest.raises(SystemExit) as stop:
        master_main(["--player", "never-run", *options, "--workdir", str(workdir)])
    assert stop.value.code == 2
    assert named in capsys.readouterr().err
    assert not workdir.exists()


def test_without_a_working_sandbox_the_master_refuses_unless_sandbox_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the tournament (issue 17's one rule): where bubblewrap cannot run, no player program
    is started unconfined by default; one line says why and what to do (exit 1). --sandbox
    none runs them bare and warns on every run."""
    import server.sandbox

    monkeypatch.setattr(server.sandbox, "check_available", lambda: "bwrap is not installed")
    player_script = str(Path(sys.executable).parent / "penguins-player")
    workdir = tmp_path / "game"
    argv = ["--player", f"{player_script} strategy=greedy id=g", "--rows", "3", "--cols", "4"]
    argv += ["--penguins", "1", "--timeout", "60", "--workdir", str(workdir)]
    for refused in (argv, [*argv, "--sandbox", "bwrap"]):
        assert master_main(refused) == 1
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1
        assert "cannot sandbox the player programs: bwrap is not installed" in err
        assert "--sandbox none" in err
        assert not workdir.exists()
    for _ in range(2):
        assert master_main([*argv, "--sandbox", "none"]) == 0
        assert "WARNING: --sandbox none" in capsys.readouterr().err


def test_a_fifo_left_as_the_board_never_stalls_the_master(tmp_path: Path) -> None:
    """A program that leaves a FIFO where its board file goes is disqualified: the master reads
    it without blocking (it is not a regular file) and writes the next board as a new file."""

    def fifo(argv: list[str], cwd: Path) -> Outcome:
        outcome = honest(argv, cwd)
        (cwd / "board.txt").unlink()
        os.mkfifo(cwd / "board.txt")
        return outcome

    programs, final, _, _ = play(tmp_path, {"a": honest, "b": fifo})
    assert programs[0].disqualified is None
    assert programs[1].disqualified is not None
    assert parse(final).players  # the game went on to its end
