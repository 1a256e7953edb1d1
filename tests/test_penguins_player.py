"""The Penguins player program as a game master sees it: a process called on board files,
judged by its exit code and by what it left in the file."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from client.penguins import main

PLAYER = str(Path(sys.executable).parent / "penguins-player")

#: Two players placed; alice on (1,1), bob on (2,3). Row 1 keeps trailing spaces and CRLF.
MID_GAME = "2 3\r\n01 20 30  \r\n10 30 02\r\nalice 1 1\r\nbob 2 1\r\n"


def read(path: Path) -> str:
    """A file's exact text (no newline translation)."""
    return path.read_bytes().decode()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PLAYER, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def fields(text: str) -> list[list[str]]:
    """The board rows of a file as lists of fields (the test's own reading of the format)."""
    lines = text.replace("\r\n", "\n").split("\n")
    rows = int(lines[0].split()[0])
    return [line.split() for line in lines[1 : rows + 1]]


def changed_fields(before: str, after: str) -> list[tuple[int, int, str, str]]:
    """(row, col, old, new) of every board field that differs."""
    return [
        (r, c, old, new)
        for r, (row_before, row_after) in enumerate(zip(fields(before), fields(after), strict=True))
        for c, (old, new) in enumerate(zip(row_before, row_after, strict=True))
        if old != new
    ]


# -- command line ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "missing phase"),
        (["phase=placement", "a", "b"], "penguins=N"),
        (["phase=movement", "a"], "two files"),
        (["phase=movement", "a", "b", "c"], "two files"),
        (["phase=jumping", "a", "b"], "placement or movement"),
        (["phase=placement", "penguins=x", "a", "b"], "penguins must be"),
        # Spec: exit 2 for bad input with a message; 5000 digits once made int() fail (exit 3).
        (["phase=placement", f"penguins={'9' * 5000}", "a", "b"], "at most 18 digits"),
        (["phase=movement", f"budget={'9' * 19}", "a", "b"], "budget must be"),
        (["phase=movement", "strategy=nope", "a", "b"], "unknown strategy"),
        (["phase=movement", "phase=movement", "a", "b"], "twice"),
        (["phase=movement", "id=", "a", "b"], "id must be"),
    ],
)
def test_bad_command_lines_exit_2_with_a_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command line the program cannot act on exits 2 and says why on stderr."""
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["name"], "penguins-territory"),
        (["strategy=greedy", "name"], "penguins-greedy"),
        (["name", "id=Team_7", "phase=placement"], "Team_7"),
        (["phase=bogus", "name", "strategy=nope", "x", "y", "z"], "penguins-territory"),
        (["name", "id=two words"], "penguins-territory"),
    ],
)
def test_name_prints_the_id_and_ignores_the_rest(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`name` prints only the player's id and exits 0."""
    assert main(argv) == 0
    assert capsys.readouterr().out == expected + "\n"


def test_name_as_a_process(tmp_path: Path) -> None:
    """The console script answers `name` on stdout, exit 0 (argv taken from sys.argv)."""
    done = run("name", "id=xy", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "xy\n", "")


# -- placement ---------------------------------------------------------------------------------


def test_placement_adds_a_player_line_and_takes_a_one_fish_floe(tmp_path: Path) -> None:
    """A newcomer places on a one-fish floe, collects it and appends its line with number 1."""
    board = tmp_path / "board.txt"
    board.write_text("2 3\n10 20 30\n00 30 10 \n", newline="")
    done = run(
        "phase=placement", "penguins=2", "board.txt", "board.txt", "strategy=greedy", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    # Greedy: (2,3) has 3 + 3 fish within reach, (1,1) only 2 + 3; the trailing space stays.
    assert read(board) == "2 3\n10 20 30\n00 30 01 \npenguins-greedy 1 1\n"


def test_second_player_takes_the_next_number(tmp_path: Path) -> None:
    """A second program adds its line with the next number and leaves the first one's alone."""
    board = tmp_path / "b.txt"
    before = "2 3\n01 20 30\n00 30 10\nalice 1 1\n"
    board.write_text(before, newline="")
    done = run("penguins=1", "b.txt", "phase=placement", "id=bob", "b.txt", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = read(board)
    assert after == "2 3\n01 20 30\n00 30 02\nalice 1 1\nbob 2 1\n"


@pytest.mark.parametrize(
    ("text", "penguins", "why"),
    [
        ("2 3\n01 20 30\n00 30 10\nalice 1 1\n", 1, "placed"),  # all N placed
        ("2 3\n01 20 30\n00 30 20\nalice 1 1\n", 3, "one fish"),  # no free one-fish floe
        ("1 2\n10 10\n", 0, "placed"),  # penguins=0
    ],
)
def test_placement_exit_1_leaves_the_file_alone(
    tmp_path: Path, text: str, penguins: int, why: str
) -> None:
    """With all penguins placed or no free one-fish floe the program exits 1, writing nothing."""
    board = tmp_path / "board.txt"
    board.write_text(text, newline="")
    done = run(
        "phase=placement", f"penguins={penguins}", "board.txt", "out.txt", "id=alice", cwd=tmp_path
    )
    assert done.returncode == 1
    assert why in done.stderr
    assert read(board) == text
    assert not (tmp_path / "out.txt").exists()


# -- movement ----------------------------------------------------------------------------------


def test_movement_changes_two_fields_and_only_its_own_score(tmp_path: Path) -> None:
    """A move empties the floe left, marks the one landed on, adds its fish to the mover's score
    and keeps every other byte (CRLF, trailing spaces, the other player's line)."""
    (tmp_path / "in.txt").write_text(MID_GAME, newline="")
    done = run("phase=movement", "in.txt", "out.txt", "id=alice", "strategy=greedy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = read(tmp_path / "out.txt")
    assert read(tmp_path / "in.txt") == MID_GAME  # IN untouched
    # alice on (1,1) reaches (1,2) with 2, (1,3) with 3 and (2,1) with 1; greedy takes the 3.
    assert after == "2 3\r\n00 20 01  \r\n10 30 02\r\nalice 1 4\r\nbob 2 1\r\n"


def test_movement_of_the_second_player(tmp_path: Path) -> None:
    """Bob moves his own penguin and leaves alice's line byte for byte."""
    (tmp_path / "b.txt").write_text(MID_GAME, newline="")
    done = run("b.txt", "b.txt", "phase=movement", "id=bob", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = read(tmp_path / "b.txt")
    changes = changed_fields(MID_GAME, after)
    assert len(changes) == 2
    assert (1, 2, "02", "00") in changes
    landed = next(c for c in changes if c[3] == "02")
    gained = int(landed[2][0])
    assert "alice 1 1\r\n" in after
    assert f"bob 2 {1 + gained}\r\n" in after


@pytest.mark.parametrize(
    "text",
    [
        "1 3\n01 00 10\nalice 1 1\n",  # walled in by a hole
        "1 2\n01 02\nalice 1 1\nbob 2 1\n",  # walled in by a penguin and the edge
        "1 2\n10 10\n",  # no player line: no penguin
    ],
)
def test_blocked_movement_exits_1(tmp_path: Path, text: str) -> None:
    """With every penguin blocked (or none) the program exits 1 and writes nothing."""
    board = tmp_path / "board.txt"
    board.write_text(text, newline="")
    done = run("phase=movement", "board.txt", "board.txt", "id=alice", cwd=tmp_path)
    assert done.returncode == 1
    assert read(board) == text


# -- bad input and internal errors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("2 3\n10 20 30\n00 50 10\n", "line 3, field 2"),
        ("2 3\n10 20 30\n", "line 3"),
        ("2 x\n", "line 1, field 2"),
        ("1 2\n10 03\nalice 1 1\n", "line 2, field 2"),
    ],
)
def test_bad_board_file_exits_2_naming_line_and_field(
    tmp_path: Path, text: str, where: str
) -> None:
    """A wrong input file exits 2 with the file, line and field on stderr, and writes nothing."""
    (tmp_path / "in.txt").write_text(text, newline="")
    done = run("phase=placement", "penguins=1", "in.txt", "out.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert f"in.txt: {where}" in done.stderr
    assert not (tmp_path / "out.txt").exists()


def test_missing_input_file_exits_2(tmp_path: Path) -> None:
    """An input file that cannot be read exits 2 naming it."""
    done = run("phase=movement", "nowhere.txt", "out.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "nowhere.txt" in done.stderr


def test_unwritable_output_exits_3(tmp_path: Path) -> None:
    """A move that cannot be saved is an internal error: exit 3 with a message."""
    (tmp_path / "in.txt").write_text(MID_GAME, newline="")
    (tmp_path / "out").mkdir()
    done = run("phase=movement", "in.txt", "out", "id=alice", cwd=tmp_path)
    assert done.returncode == 3
    assert "internal error" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out"]  # no temporary left


def test_an_output_file_that_is_a_link_is_written_through(tmp_path: Path) -> None:
    """Spec: the program writes its move to OUT. When OUT is a link to the shared board (as a
    game master may set up), the board it names gets the move and the link stays a link."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "board.txt").write_text(MID_GAME, newline="")
    mine = tmp_path / "alice"
    mine.mkdir()
    (mine / "board.txt").symlink_to(shared / "board.txt")
    done = run("phase=movement", "board.txt", "board.txt", "id=alice", cwd=mine)
    assert done.returncode == 0, done.stderr
    assert (mine / "board.txt").is_symlink()
    after = (shared / "board.txt").read_text()
    assert len(changed_fields(MID_GAME, after)) == 2
    assert sorted(p.name for p in shared.iterdir()) == ["board.txt"]  # no temporary left


# -- a whole game through files ----------------------------------------------------------------


def oracle_moves(text: str, number: int) -> set[tuple[int, int, int, int]]:
    """Every legal move of player ``number``, worked out independently of the code under test:
    straight lines up, down, left, right over floes with fish."""
    rows = fields(text)
    out = set()
    for r, row in enumerate(rows):
        for c, field in enumerate(row):
            if int(field[1]) != number:
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                while 0 <= rr < len(rows) and 0 <= cc < len(row) and rows[rr][cc][0] != "0":
                    out.add((r, c, rr, cc))
                    rr, cc = rr + dr, cc + dc
    return out


def scores(text: str) -> dict[str, int]:
    lines = text.replace("\r\n", "\n").split("\n")
    rows = int(lines[0].split()[0])
    return {line.split()[0]: int(line.split()[2]) for line in lines[rows + 1 :] if line.strip()}


def test_whole_game_between_two_copies_of_the_player(tmp_path: Path) -> None:
    """Two copies of the program (different ids and strategies) play a whole game on one file,
    as the seed's game master loop runs them: every call's exit code and file change is legal,
    and the game ends with nobody able to move and every fish accounted for."""
    start = "4 5\n10 20 30 10 20\n30 10 00 20 10\n10 20 10 30 00\n20 10 30 10 20\n"
    board = tmp_path / "board.txt"
    board.write_text(start, newline="")
    total = sum(int(f[0]) for row in fields(start) for f in row)
    players = [("ab", "strategy=alphabeta", 1), ("gr", "strategy=greedy", 2)]
    penguins = 2
    calls = 0
    for phase in ("placement", "movement"):
        while True:
            codes = []
            for ident, strategy, number in players:
                before = read(board)
                extra = [f"penguins={penguins}"] if phase == "placement" else []
                done = run(
                    f"phase={phase}",
                    *extra,
                    "board.txt",
                    "board.txt",
                    f"id={ident}",
                    strategy,
                    cwd=tmp_path,
                )
                calls += 1
                after = read(board)
                codes.append(done.returncode)
                changes = changed_fields(before, after)
                gained = scores(after).get(ident, 0) - scores(before).get(ident, 0)
                if done.returncode == 1:
                    assert after == before
                    if phase == "movement":
                        assert not oracle_moves(before, number)
                    continue
                assert done.returncode == 0, done.stderr
                if phase == "placement":
                    ((_, _, old, new),) = changes
                    assert (old, new, gained) == ("10", f"0{number}", 1)
                else:
                    (r1, c1, _, n1), (r2, c2, _, _) = changes
                    src, dst = ((r1, c1), (r2, c2)) if n1 == "00" else ((r2, c2), (r1, c1))
                    assert (*src, *dst) in oracle_moves(before, number)
                    landed = fields(before)[dst[0]][dst[1]]
                    assert gained == int(landed[0])
                others = {k: v for k, v in scores(after).items() if k != ident}
                assert others == {k: v for k, v in scores(before).items() if k != ident}
            if codes == [1, 1]:
                break
    final = read(board)
    assert all(not oracle_moves(final, number) for _, _, number in players)
    left = sum(int(f[0]) for row in fields(final) for f in row)
    assert left + sum(scores(final).values()) == total
    assert sum(f[1] != "0" for row in fields(final) for f in row) == 4
    assert calls > 10


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_corrupted_file_gets_exit_0_1_or_2_never_3(
    data: st.DataObject, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever a previous program left in the file, the player moves, says it cannot, or names
    the fault (exit 2): it never fails inside (exit 3)."""
    at = data.draw(st.integers(0, len(MID_GAME)))
    insert = data.draw(st.sampled_from(["", "0", "1", "2", "4", " ", "\n", "\r", "x"]))
    edited = MID_GAME[:at] + insert + MID_GAME[at + data.draw(st.integers(0, 3)) :]
    phase = data.draw(st.sampled_from(["phase=placement", "phase=movement"]))
    with tempfile.TemporaryDirectory() as directory:
        board = Path(directory) / "board.txt"
        board.write_bytes(edited.encode())
        code = main([phase, "penguins=2", str(board), str(board), "id=bob"])
        err = capsys.readouterr().err
        assert code in (0, 1, 2), err
        if code == 2:
            assert "line " in err
        if code != 0:
            assert read(board) == edited
