"""`arena penguins play`: a terminal game driven through stdin, as two people (or a person and
a bot) would play it."""

from __future__ import annotations

import io
import random

import pytest

from floes import Floes
from penguins.interactive import Session, main, render
from penguins.rules import PENGUINS_RULES
from penguins.strategies import GreedyStrategy


def feed(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))


def line_board(fish: list[int], penguins: int = 1) -> Floes:
    """A one-row board for two players."""
    return Floes(PENGUINS_RULES, 1, len(fish), fish, [penguins, penguins])


def test_board_picture_has_coordinates_fish_holes_and_penguins() -> None:
    """Rows and columns are numbered from 1; fish are digits, holes dots, penguins P<n>."""
    state = Floes(PENGUINS_RULES, 2, 3, [1, 2, 0, 3, 1, 1], [1, 1])
    state.place(4)
    assert render(state) == (
        "    1  2  3\n1   1  2  .\n2   3 P1  1\nplayer 1: 1 fish  player 2: 0 fish"
    )


def test_two_people_play_a_whole_game_and_bad_input_is_explained(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every refused input says why and asks the same player again; the game ends with the
    winner named."""
    feed(
        monkeypatch,
        "1 2",  # P1: 2 fish there
        "9 9",  # P1: off the board
        "9" * 5000 + " 1",  # P1: a number int() alone would refuse with a traceback
        "1 1",  # P1 places
        "1 1",  # P2: taken
        "1 3",  # P2 places
        "1 1 1 3",  # P1: P2's penguin is in the way
        "1 3 1 4",  # P1: not its penguin
        "1 1",  # P1: a move needs four numbers
        "moves",  # P1 asks for the legal moves
        "1 1 1 2",  # P1 collects 2
        "1 3 1 4",  # P2 collects 3
    )
    state = line_board([1, 2, 1, 3, 0])
    assert Session(state, {}, random.Random(0)).run() == 0
    out = capsys.readouterr().out
    for expected in [
        "Not allowed: (1,2) has 2 fish: penguins are placed on floes with exactly 1 fish",
        "Not allowed: row 9 is off the board (rows 1-1)",
        "Not allowed: a number of more than 9 digits is off any board",
        "Not allowed: (1,1) already has a penguin of player 1",
        "Not allowed: the way is blocked by the penguin on (1,3)",
        "Not allowed: (1,3) is not one of your penguins (yours: (1,1))",
        "Not allowed: type 4 numbers",
        "You may move: (1,1)->(1,2)",
        "Player 1 collects 2 fish.",
        "Player 2 collects 3 fish.",
        "Game over: player 2 wins with 4 fish.",
    ]:
        assert expected in out
    assert state.scores == [3, 4]


def test_person_against_a_bot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bot's placements and moves are announced; the person plays the other seat."""
    feed(monkeypatch, "1 1", "1 1 1 2")
    state = line_board([1, 2, 1, 3, 0])
    Session(state, {1: GreedyStrategy()}, random.Random(0)).run()
    out = capsys.readouterr().out
    assert "Player 2 (greedy) places a penguin on (1,3)." in out
    assert "Player 2 (greedy) moves (1,3) -> (1,4) and collects 3 fish." in out
    assert "Game over: player 2 wins with 4 fish." in out


def test_a_blocked_player_is_announced_as_skipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """When the player whose turn comes cannot move, the terminal says it is skipped."""
    feed(monkeypatch, "1 1", "1 2", "1 2 1 3")
    state = line_board([1, 1, 2, 0, 1])
    Session(state, {}, random.Random(0)).run()
    out = capsys.readouterr().out
    assert "Player 1 cannot move: skipped." in out
    assert "Game over: player 2 wins with 3 fish." in out


@pytest.mark.parametrize("lines", [(), ("quit",), ("1 1", "q")])
def test_quit_or_end_of_input_abandons_the_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lines: tuple[str, ...]
) -> None:
    """`quit` or the end of input stops the game politely (exit 0)."""
    feed(monkeypatch, *lines)
    assert main(["--rows", "3", "--cols", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Game abandoned." in out
    assert "    1  2  3  4" in out


def test_command_line_game_against_a_bot_to_the_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --bot-first the bot opens; a person who always asks for moves and takes the first
    one listed finishes the game."""
    answers: list[str] = []

    def person(prompt: str) -> str:
        out = capsys.readouterr().out
        listed = [line for line in out.splitlines() if line.startswith("You may")]
        if not listed:
            answers.append("moves")
            return "moves"
        first = listed[-1].split(": ", 1)[1].split()[0]
        answer = first.replace("->", " ").replace("(", "").replace(")", "").replace(",", " ")
        answers.append(answer)
        return answer

    monkeypatch.setattr("builtins.input", person)
    code = main(
        ["--opponent", "greedy", "--bot-first", "--rows", "3", "--cols", "4", "--seed", "5"]
    )
    assert code == 0
    assert "Game over" in capsys.readouterr().out
    assert len(answers) >= 4


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "10"],
        ["--rows", "0"],
        ["--penguins", "50"],
        ["--bot-first"],
        ["--opponent", "nobody"],
    ],
)
def test_bad_options_exit_2(argv: list[str]) -> None:
    """Impossible options are refused by the argument parser (exit 2)."""
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
