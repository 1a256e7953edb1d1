"""The rules of Labyrinth (spec labyrinth.md): steps, wrapping, rotations, energy, ends of game."""

from __future__ import annotations

import re

import pytest

from labyrinth.game import LabyrinthGame, LabyrinthState
from labyrinth.rules import (
    Labyrinth,
    LabyrinthConfig,
    Move,
    MoveType,
    ReturnCode,
    format_move,
    parse_move,
)

UP, DOWN, LEFT, RIGHT, STAY = (
    MoveType.MOVE_UP,
    MoveType.MOVE_DOWN,
    MoveType.MOVE_LEFT,
    MoveType.MOVE_RIGHT,
    MoveType.DO_NOTHING,
)


def maze(*rows: str, config: LabyrinthConfig | None = None) -> Labyrinth:
    """A position from a picture: '#' is a wall, anything else free."""
    walls = bytes(1 if char == "#" else 0 for row in rows for char in row)
    return Labyrinth(len(rows[0]), len(rows), walls, config)


OPEN_5 = ["....."] * 5


def placed(
    rows: list[str],
    first: tuple[int, int],
    second: tuple[int, int] = (4, 2),
    treasure: tuple[int, int] = (2, 2),
    energies: tuple[int, int] = (0, 1),
) -> Labyrinth:
    """A position from a picture with the players, treasure and energies put where asked."""
    labyrinth = maze(*rows)
    labyrinth.players = [first, second]
    labyrinth.treasure = treasure
    labyrinth.energies = list(energies)
    return labyrinth


def test_encoding_is_the_c_apis() -> None:
    """Move types and return codes carry the C API's numbers, so the protocol maps onto them."""
    assert [int(kind) for kind in MoveType] == list(range(9))
    assert [kind.name for kind in MoveType][:4] == [
        "ROTATE_LINE_LEFT",
        "ROTATE_LINE_RIGHT",
        "ROTATE_COLUMN_UP",
        "ROTATE_COLUMN_DOWN",
    ]
    assert (ReturnCode.MOVE_OK, ReturnCode.MOVE_WIN, ReturnCode.MOVE_LOSE) == (0, 1, -1)


def test_initial_position_follows_the_spec() -> None:
    """Starts at (0, H/2) and (L-1, H/2), treasure at (L/2, H/2), energies 0 and 1."""
    labyrinth = maze(*(["......."] * 5))
    assert labyrinth.players == [(0, 2), (6, 2)]
    assert labyrinth.treasure == (3, 2)
    assert labyrinth.energies == [0, 1]
    assert labyrinth.to_move == 0


def test_maze_text_is_the_protocols_row_by_row_digits() -> None:
    """maze_text gives GET_GAME_DATA's L*H '0'/'1' characters, row 0 first."""
    labyrinth = maze("#....", ".....", ".....", ".....", "...##")
    assert labyrinth.maze_text() == "1" + "0" * 4 + "0" * 15 + "00011"


@pytest.mark.parametrize(
    ("start", "step", "end"),
    [
        ((0, 1), LEFT, (4, 1)),
        ((4, 1), RIGHT, (0, 1)),
        ((1, 0), UP, (1, 4)),
        ((1, 4), DOWN, (1, 0)),
        ((0, 0), UP, (0, 4)),
        ((4, 4), RIGHT, (0, 4)),
    ],
)
def test_steps_wrap_at_every_edge(
    start: tuple[int, int], step: MoveType, end: tuple[int, int]
) -> None:
    """A step off one edge of the torus comes back in on the opposite edge."""
    labyrinth = placed(OPEN_5, start)
    assert labyrinth.play(Move(step)) == ReturnCode.MOVE_OK
    assert labyrinth.players[0] == end


@pytest.mark.parametrize(
    ("rows", "start", "step"),
    [
        ([".....", "#....", ".....", ".....", "....."], (4, 1), RIGHT),
        ([".#...", ".....", ".....", ".....", "....."], (1, 4), DOWN),
        ([".....", "..#..", ".....", ".....", "....."], (1, 1), RIGHT),
    ],
)
def test_a_step_into_a_wall_loses(rows: list[str], start: tuple[int, int], step: int) -> None:
    """Stepping into a wall (wrapping included) is MOVE_LOSE and the opponent wins."""
    labyrinth = placed(rows, start)
    assert labyrinth.play(Move(step)) == ReturnCode.MOVE_LOSE
    assert labyrinth.over
    assert labyrinth.winner == 1
    assert "wall" in labyrinth.end_reason


ROTATION_MAZE = ["#....", ".#...", "...#.", "..#..", "....#"]


@pytest.mark.parametrize(
    ("move", "walls_row_or_column", "expected"),
    [
        (Move(MoveType.ROTATE_LINE_LEFT, 1), ("row", 1), "#...."),
        (Move(MoveType.ROTATE_LINE_RIGHT, 1), ("row", 1), "..#.."),
        (Move(MoveType.ROTATE_LINE_LEFT, 0), ("row", 0), "....#"),
        (Move(MoveType.ROTATE_COLUMN_UP, 2), ("column", 2), "..#.."),
        (Move(MoveType.ROTATE_COLUMN_DOWN, 2), ("column", 2), "....#"),
        (Move(MoveType.ROTATE_COLUMN_DOWN, 4), ("column", 4), "#...."),
    ],
)
def test_rotations_shift_one_row_or_column_circularly(
    move: Move, walls_row_or_column: tuple[str, int], expected: str
) -> None:
    """A rotation moves every cell of its row or column one place, the last one wrapping."""
    labyrinth = placed(ROTATION_MAZE, (0, 1), (0, 3), treasure=(4, 3), energies=(5, 0))
    labyrinth.play(move)
    axis, index = walls_row_or_column
    width = labyrinth.width
    if axis == "row":
        cells = labyrinth.walls[index * width : (index + 1) * width]
    else:
        cells = labyrinth.walls[index::width]
    assert "".join("#" if cell else "." for cell in cells) == expected


@pytest.mark.parametrize(
    ("move", "players", "treasure"),
    [
        # player 0 on (0, 1), player 1 on (3, 0), treasure on (3, 2); open 5 x 5.
        (Move(MoveType.ROTATE_LINE_LEFT, 1), [(4, 1), (3, 0)], (3, 2)),
        (Move(MoveType.ROTATE_LINE_RIGHT, 2), [(0, 1), (3, 0)], (4, 2)),
        (Move(MoveType.ROTATE_COLUMN_UP, 3), [(0, 1), (3, 4)], (3, 1)),
        (Move(MoveType.ROTATE_COLUMN_DOWN, 3), [(0, 1), (3, 1)], (3, 3)),
        (Move(MoveType.ROTATE_COLUMN_DOWN, 0), [(0, 2), (3, 0)], (3, 2)),
        (Move(MoveType.ROTATE_LINE_LEFT, 4), [(0, 1), (3, 0)], (3, 2)),
    ],
)
def test_rotations_carry_players_and_the_treasure(
    move: Move, players: list[tuple[int, int]], treasure: tuple[int, int]
) -> None:
    """Players and the treasure on the rotated row or column move with it, wrapping."""
    labyrinth = placed(OPEN_5, (0, 1), (3, 0), treasure=(3, 2), energies=(5, 0))
    assert labyrinth.play(move) == ReturnCode.MOVE_OK
    assert labyrinth.players == players
    assert labyrinth.treasure == treasure


def test_energy_grows_by_one_per_step_or_stay_and_a_rotation_costs_five() -> None:
    """Steps and stays give one energy each; a rotation takes five."""
    labyrinth = placed(OPEN_5, (0, 0), (0, 4), energies=(0, 1))
    for move, expected in [
        (Move(RIGHT), [1, 1]),
        (Move(STAY), [1, 2]),
        (Move(STAY), [2, 2]),
        (Move(UP), [2, 3]),
    ]:
        labyrinth.play(move)
        assert labyrinth.energies == expected
    labyrinth.energies = [7, 3]
    labyrinth.play(Move(MoveType.ROTATE_COLUMN_UP, 4))
    assert labyrinth.energies == [2, 3]


@pytest.mark.parametrize(
    ("move", "energy", "cause"),
    [
        (Move(MoveType.ROTATE_LINE_LEFT, 0), 4, "energy"),
        (Move(MoveType.ROTATE_COLUMN_DOWN, 2), 0, "energy"),
        (Move(MoveType.ROTATE_LINE_LEFT, 5), 9, "row 5"),
        (Move(MoveType.ROTATE_LINE_RIGHT, -1), 9, "row -1"),
        (Move(MoveType.ROTATE_COLUMN_UP, 5), 9, "column 5"),
        (Move(MoveType.ROTATE_COLUMN_DOWN, -2), 9, "column -2"),
        (Move(9, 0), 9, "unknown move type 9"),
        (Move(-1, 0), 9, "unknown move type -1"),
    ],
)
def test_each_losing_condition_ends_the_game(move: Move, energy: int, cause: str) -> None:
    """A rotation without energy, a bad row or column index or an unknown type loses."""
    labyrinth = placed(OPEN_5, (0, 0), energies=(energy, 0))
    before = labyrinth.walls[:]
    assert labyrinth.losing_reason(move) is not None
    assert labyrinth.play(move) == ReturnCode.MOVE_LOSE
    assert labyrinth.over
    assert labyrinth.winner == 1
    assert cause in labyrinth.end_reason
    assert labyrinth.walls == before


def test_second_player_losing_makes_the_first_the_winner() -> None:
    """The loser is whoever played the losing move."""
    labyrinth = placed(OPEN_5, (0, 0), (1, 1))
    labyrinth.play(Move(STAY))
    assert labyrinth.play(Move(MoveType.ROTATE_LINE_LEFT, 0)) == ReturnCode.MOVE_LOSE
    assert labyrinth.winner == 0


def test_a_step_onto_the_treasure_wins() -> None:
    """MOVE_WIN for the mover, the game is over with them as the winner."""
    labyrinth = placed(OPEN_5, (1, 2))
    assert labyrinth.play(Move(RIGHT)) == ReturnCode.MOVE_WIN
    assert labyrinth.over
    assert labyrinth.winner == 0


def test_rotations_never_bring_the_treasure_under_a_player() -> None:
    """A rotation carries the treasure and any player on its line alike, so none lands on it."""
    for move in placed(OPEN_5, (1, 2), (2, 3), energies=(5, 0)).legal_moves():
        if move.type >= 4:
            continue
        labyrinth = placed(OPEN_5, (1, 2), (2, 3), energies=(5, 0))
        assert labyrinth.play(move) == ReturnCode.MOVE_OK
        assert labyrinth.treasure not in labyrinth.players


def test_staying_or_rotating_on_the_treasure_does_not_win_stepping_back_on_does() -> None:
    """Only a step ends on the treasure with a win: a stay or a rotation there is MOVE_OK."""
    labyrinth = placed(OPEN_5, (2, 2), (0, 4), energies=(5, 0))
    assert labyrinth.play(Move(STAY)) == ReturnCode.MOVE_OK
    labyrinth.play(Move(STAY))
    assert labyrinth.play(Move(MoveType.ROTATE_LINE_LEFT, 2)) == ReturnCode.MOVE_OK
    assert labyrinth.players[0] == labyrinth.treasure == (1, 2)
    assert not labyrinth.over
    labyrinth.play(Move(STAY))
    assert labyrinth.play(Move(UP)) == ReturnCode.MOVE_OK
    labyrinth.play(Move(STAY))
    assert labyrinth.play(Move(DOWN)) == ReturnCode.MOVE_WIN
    assert labyrinth.winner == 0


def test_players_may_share_a_cell() -> None:
    """Stepping onto the opponent is legal."""
    labyrinth = placed(OPEN_5, (0, 0), (1, 0))
    assert labyrinth.play(Move(RIGHT)) == ReturnCode.MOVE_OK
    assert labyrinth.players[0] == labyrinth.players[1]


def test_the_turn_limit_counts_single_moves_and_ends_in_a_draw() -> None:
    """With max_turns = 4, four moves (two each) without a winner end the game in a draw."""
    labyrinth = maze(*OPEN_5, config=LabyrinthConfig(max_turns=4))
    for _ in range(3):
        labyrinth.play(Move(STAY))
        assert not labyrinth.over
    assert labyrinth.play(Move(STAY)) == ReturnCode.MOVE_OK
    assert labyrinth.over
    assert labyrinth.winner is None
    assert labyrinth.turn == 4


def test_a_finished_game_refuses_moves_and_garbage_changes_nothing() -> None:
    """Playing after the end, or something that is not a move, is a ValueError."""
    labyrinth = placed(OPEN_5, (1, 2))
    with pytest.raises(ValueError, match="not a move"):
        labyrinth.play("up")  # type: ignore[arg-type]
    assert labyrinth.turn == 0
    assert not labyrinth.over
    labyrinth.play(Move(RIGHT))
    with pytest.raises(ValueError, match="over"):
        labyrinth.play(Move(STAY))


@pytest.mark.parametrize("energy", [0, 4, 5, 12])
def test_legal_moves_are_exactly_the_moves_that_do_not_lose(energy: int) -> None:
    """legal_moves lists every non-losing move and no other, rotations only with energy."""
    labyrinth = placed(ROTATION_MAZE, (1, 0), energies=(energy, 0))
    legal = set(labyrinth.legal_moves())
    every = {Move(kind, value) for kind in range(10) for value in range(-1, 6)}
    not_losing = {move for move in every if labyrinth.losing_reason(move) is None}
    # Step and stay values are ignored by the rules; the list carries them as 0 (spec).
    assert legal == {move for move in not_losing if move.type < 4 or move.value == 0}
    assert any(move.type < 4 for move in legal) == (energy >= 5)
    assert Move(STAY) in legal


def test_game_state_returns_and_losing_actions() -> None:
    """A losing action through the game interface ends it: -1 for the mover, +1 for the other."""
    state = LabyrinthGame().new_initial_state(0)
    assert state.returns() == [0.0, 0.0]
    state.apply_action(Move(MoveType.ROTATE_LINE_LEFT, 0))
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]
    assert state.legal_actions() == []


def test_serialisation_names_the_whole_position() -> None:
    """Two positions differing only in energy serialise differently."""
    first = LabyrinthState(placed(OPEN_5, (0, 0)))
    second = first.clone()
    second.labyrinth.energies[1] += 1
    assert first.serialize() != second.serialize()
    assert first.labyrinth.maze_text() in first.serialize()


def test_game_options_override_the_config_and_unknown_ones_are_named() -> None:
    """LabyrinthGame(width=7, max_turns=50) fixes the width and turn limit; a typo is an error."""
    game = LabyrinthGame(width=7, height=5, max_turns=50)
    assert game.info.max_game_length == 50
    labyrinth = game.new_initial_state(3).labyrinth
    assert (labyrinth.width, labyrinth.height) == (7, 5)
    with pytest.raises(ValueError, match="unknown labyrinth option 'max_turn'"):
        LabyrinthGame(max_turn=5)


@pytest.mark.parametrize(
    ("options", "cause"),
    [
        ({"width": "abc"}, "width: expected an integer, got 'abc'"),
        ({"max_turns": 1.5}, "max_turns: expected an integer"),
        ({"wall_ratio": "x"}, "wall_ratio: expected a number"),
        ({"start_energy": 3}, "start_energy: expected a pair of integers"),
    ],
)
def test_game_options_of_the_wrong_kind_are_named(options: dict[str, object], cause: str) -> None:
    """`arena sim labyrinth --config width=abc` is refused naming the option and its kind."""
    with pytest.raises(ValueError, match=cause):
        LabyrinthGame(**options)


def test_the_protocols_maze_text_round_trips() -> None:
    """from_maze_text(maze_text()) rebuilds the same walls."""
    original = maze("#...#", ".#.#.", ".....", "..#..", "##.##")
    copy = Labyrinth.from_maze_text(5, 5, original.maze_text())
    assert copy.walls == original.walls


@pytest.mark.parametrize(
    ("text", "cause"),
    [("0" * 24, "24 characters, expected 5 x 5 = 25"), ("0" * 24 + "x", "found ['x']")],
)
def test_a_bad_maze_text_is_refused_naming_the_cause(text: str, cause: str) -> None:
    """Wrong length or characters other than 0 and 1 raise ValueError saying which."""
    with pytest.raises(ValueError, match=re.escape(cause)):
        Labyrinth.from_maze_text(5, 5, text)


@pytest.mark.parametrize(
    ("text", "move"), [("7 -1", Move(7, -1)), ("2 3", Move(2, 3)), (" 8  0 ", Move(8, 0))]
)
def test_protocol_move_text_round_trips(text: str, move: Move) -> None:
    """'<type> <value>' parses to the move and formats back."""
    assert parse_move(text) == move
    assert parse_move(format_move(move)) == move


@pytest.mark.parametrize(
    "text",
    [
        "",
        "7",
        "7 -1 2",
        "up 1",
        "7 x",
        "1_0 3",
        "7 1_0",
        "\u0663 1",
        "7 --1",
        "+7 -1",
        "7 " + "9" * 5000,
    ],
)
def test_bad_move_text_is_refused(text: str) -> None:
    """Anything but two integers as C's %d prints them (the C API sends "%d %d") is a ValueError
    naming the text: int() alone would read "1_0" as type 10 and "\u0663" (Arabic three) as 3."""
    with pytest.raises(ValueError, match="a move"):
        parse_move(text)
