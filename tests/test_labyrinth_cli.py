"""``arena labyrinth show`` and ``play``: pictures, and human play driven by fed stdin."""

from __future__ import annotations

import io
from collections import deque

import pytest

from arena.labyrinth import main
from labyrinth.generation import generate

COMMANDS = {(0, -1): "u", (0, 1): "d", (-1, 0): "l", (1, 0): "r"}


def path_commands(seed: int) -> list[str]:
    """Step commands along a shortest path from the first player's start to the treasure."""
    labyrinth = generate(seed)
    width, height = labyrinth.width, labyrinth.height
    start, goal = labyrinth.players[0], labyrinth.treasure
    parent: dict[tuple[int, int], tuple[tuple[int, int], str]] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        x, y = queue.popleft()
        for (dx, dy), command in COMMANDS.items():
            cell = ((x + dx) % width, (y + dy) % height)
            if cell not in seen and not labyrinth.walls[cell[1] * width + cell[0]]:
                seen.add(cell)
                parent[cell] = ((x, y), command)
                queue.append(cell)
    commands = []
    cell = goal
    while cell != start:
        cell, command = parent[cell]
        commands.append(command)
    return commands[::-1]


def run(argv: list[str], typed: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(typed), stdout=out)
    return code, out.getvalue()


def test_show_prints_the_maze_with_indices_players_and_treasure() -> None:
    """The picture has one line per row, A, B and T, and the energies."""
    code, text = run(["show", "--seed", "4"])
    labyrinth = generate(4)
    assert code == 0
    rows = [line for line in text.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == labyrinth.height
    assert all(len(line) == 4 + labyrinth.width for line in rows)
    assert "A" in rows[labyrinth.height // 2]
    assert "T" in rows[labyrinth.height // 2]
    assert "energy 0" in text
    assert "energy 1" in text


def test_show_honours_width_and_height() -> None:
    """--width and --height fix the size."""
    code, text = run(["show", "--seed", "1", "--width", "7", "--height", "5"])
    assert code == 0
    assert text.startswith("seed 1: 7 x 5")


def test_show_draws_a_png(tmp_path: pytest.TempPathFactory) -> None:
    """--png writes a PNG image."""
    target = tmp_path / "maze.png"  # type: ignore[operator]
    code, _ = run(["show", "--seed", "2", "--png", str(target)])
    assert code == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["show", "--width", "4"], "argument --width: 4 must be odd"),
        (["show", "--height", "x"], "argument --height: 'x' is not a whole number"),
        (["show", "--width", "301"], "argument --width: 301 must be odd, from 5 to 99"),
        (["fly"], "invalid choice: 'fly'"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even, huge (generation would take minutes) or non-number sizes and unknown commands
    exit 2 naming the problem on stderr."""
    assert run(argv)[0] == 2
    assert problem in capsys.readouterr().err


def test_a_human_walks_to_the_treasure_and_wins() -> None:
    """Typed steps along a shortest path beat DO_NOTHING."""
    typed = "\n".join(path_commands(5)) + "\n"
    code, text = run(["play", "--seed", "5", "--opponent", "do_nothing"], typed)
    assert code == 0
    assert text.rstrip().endswith("you win!")
    assert text.count("do_nothing: stay") == len(path_commands(5)) - 1


def test_bad_commands_get_a_helpful_message_and_lose_nothing() -> None:
    """Unknown words, bad indices, rotations without energy and walls are refused; play goes on."""
    labyrinth = generate(5)
    wall_step = next(
        command
        for command, step in (("u", 4), ("d", 5), ("l", 6), ("r", 7))
        if labyrinth.losing_reason((step, -1)) is not None  # type: ignore[arg-type]
    )
    typed = ["jump", f"rl {labyrinth.height}", "cu", "rl 0", wall_step, "?", *path_commands(5)]
    code, text = run(["play", "--seed", "5", "--opponent", "do_nothing"], "\n".join(typed) + "\n")
    assert code == 0
    assert "unknown command 'jump'" in text
    assert f"needs a row index from 0 to {labyrinth.height - 1}" in text
    assert "needs a column index" in text
    assert "rotates with 0 energy, needs 5" in text
    assert "wall" in text
    assert "would lose" in text
    assert "rl N / rr N" in text
    assert text.rstrip().endswith("you win!")


def test_raw_moves_and_rotations_are_played() -> None:
    """'8 -1' is DO_NOTHING; after five stays, 'cu 0' rotates column 0 and the bot sees it."""
    code, text = run(
        ["play", "--seed", "5", "--opponent", "do_nothing"], "8 -1\n.\n.\n.\n.\ncu 0\nq\n"
    )
    assert code == 0
    assert text.count("you: stay") == 5
    assert "you: rotate column 0 up" in text
    assert "you gave up" in text


def test_the_bot_can_start_and_beats_an_idle_human() -> None:
    """With --second the bot moves first; staying forever loses to ASTAR."""
    code, text = run(["play", "--seed", "3", "--second"], ".\n" * 200)
    assert code == 0
    assert text.splitlines()[0].startswith("seed 3: you are B")
    assert "astar: step" in text.split("your move>")[0]
    assert text.rstrip().endswith("you lose")


def test_input_ending_mid_game_abandons_it() -> None:
    """End of input before the end of the game exits 1 with a message."""
    code, text = run(["play", "--seed", "5"], "")
    assert code == 1
    assert "game abandoned" in text


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("rl \u00b2", "'rl' needs a row index"),
        ("cd -1", "'cd' needs a column index"),
        ("--1 2", "unknown command '--1 2'"),
        ("\u00b2 1", "unknown command"),
        ("7 1_0", "unknown command"),
        ("rl " + "9" * 5000, "'rl' needs a row index"),
        ("9" * 5000 + " 1", "unknown command"),
    ],
)
def test_odd_numbers_typed_are_refused_not_a_crash(typed: str, refusal: str) -> None:
    """Any line typed in play gets either a move or the reason it is refused, and the game goes
    on (here to 'q'): a superscript digit or a doubled minus sign is no index and no move."""
    code, text = run(["play", "--seed", "5", "--opponent", "do_nothing"], f"{typed}\nq\n")
    assert code == 0
    assert refusal in text
