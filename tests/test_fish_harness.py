"""The course's test harnesses (`arena fish x...`): the course's examples, examples derived by
hand from the spec, and malformed input (exit 2, a message on stderr, nothing on stdout)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fish_spec import Pos, spec_step

from arena.fish import run

REPO = Path(__file__).resolve().parent.parent
# The course's own examples (one folder per harness), copied into the repository so that a clean
# clone has them wherever it stands (tests/fixtures/README.md).
FIXTURES = REPO / "tests" / "fixtures" / "fish-course"
HARNESSES = ["xboard", "xstate", "xtree", "xstrategy", "xref"]


def course_cases() -> list[tuple[str, Path]]:
    assert FIXTURES.is_dir(), f"the course's examples are missing: {FIXTURES}"
    return [
        (harness, path)
        for harness in HARNESSES
        for path in sorted((FIXTURES / harness).glob("*-in.json"))
    ]


@pytest.mark.parametrize(("harness", "path"), course_cases(), ids=lambda v: str(v)[-14:])
def test_course_examples(harness: str, path: Path) -> None:
    """Each harness prints the course's expected JSON value for the course's input."""
    expected = json.loads(path.with_name(path.name.replace("-in", "-out")).read_text())
    status, output = run(harness, path.read_text())
    assert status == 0, output
    assert json.loads(output) == expected


# A column board (hand-derived in tests/test_fish_strategies.py): red on (3,0), white on (6,0).
COLUMN_STATE = {
    "board": [[0], [5], [3], [1], [1], [1], [1], [1]],
    "players": [
        {"color": "red", "score": 0, "places": [[3, 0]]},
        {"color": "white", "score": 0, "places": [[6, 0]]},
    ],
}


def full_board_state(red: list[list[int]], white: list[list[int]]) -> dict[str, object]:
    """Red then white on a 5 x 3 board of 1-fish tiles."""
    return {
        "board": [[1, 1, 1] for _ in range(5)],
        "players": [
            {"color": "red", "score": 0, "places": red},
            {"color": "white", "score": 0, "places": white},
        ],
    }


SPEC_CASES = [
    # The spec's xboard example.
    ("xboard", {"position": [0, 0], "board": [[1, 2, 3], [4, 0, 5], [1, 1, 0]]}, 3),
    # (1,1), odd, on a full 3 x 3 board: NE (0,2), SE (2,2), SW (2,1), NW (0,1); N, S off.
    ("xboard", {"position": [1, 1], "board": [[1, 1, 1], [1, 1, 1], [1, 1, 1]]}, 4),
    # Short rows are holes: from (0,0), SE (1,0) then (2,1) is missing; S (2,0).
    ("xboard", {"position": [0, 0], "board": [[1, 1], [1], [1]]}, 2),
    # Red's first penguin (3,0): its first neighbour, N (1,0), is free; red scores (3,0)'s 1 fish
    # and goes to the end of the players array.
    (
        "xstate",
        COLUMN_STATE,
        {
            "board": [[0], [5], [3], [0], [1], [1], [1], [1]],
            "players": [
                {"color": "white", "score": 0, "places": [[6, 0]]},
                {"color": "red", "score": 1, "places": [[1, 0]]},
            ],
        },
    ),
    # A rectangular board comes out for ragged input: red on (0,0) moves SE to (1,0).
    (
        "xstate",
        {"board": [[2], [1, 1]], "players": [{"color": "red", "score": 3, "places": [[0, 0]]}]},
        {"board": [[0, 0], [1, 1]], "players": [{"color": "red", "score": 5, "places": [[1, 0]]}]},
    ),
    # No player, or a first player without penguins: nothing moves.
    ("xstate", {"board": [[1, 1]], "players": []}, False),
    ("xstate", {"board": [[1, 1]], "players": [{"color": "red", "score": 0, "places": []}]}, False),
    # Red (3,0) -> (2,0). Neighbours of (2,0): N (0,0) hole; NE (1,0) free but white's N line
    # from (6,0) stops at red on (2,0); SE (3,0) now a hole; S (4,0): white reaches it.
    ("xtree", {"state": COLUMN_STATE, "from": [3, 0], "to": [2, 0]}, [[6, 0], [4, 0]]),
    # Neighbours of Q = (2,1) (even row) in order: N (0,1), NE (1,1), SE (3,1), S (4,1),
    # SW (3,0), NW (1,0). White on (1,1) lands on N (0,1) by NW; white on (0,0) lands on NW (1,0)
    # by SE, a smaller move, but the direction order comes first.
    (
        "xtree",
        {"state": full_board_state([[4, 1]], [[0, 0], [1, 1]]), "from": [4, 1], "to": [2, 1]},
        [[1, 1], [0, 1]],
    ),
    # Both white penguins land on N (0,1): (1,0) by NE, (1,1) by NW; the smaller from wins.
    (
        "xtree",
        {"state": full_board_state([[4, 1]], [[1, 1], [1, 0]]), "from": [4, 1], "to": [2, 1]},
        [[1, 0], [0, 1]],
    ),
    # Depth 1: every move of red scores 1; the smallest is (3,0) -> (1,0).
    ("xstrategy", [1, COLUMN_STATE], [[3, 0], [1, 0]]),
    # Depth 2: on (1,0) white blocks red's only exit (2,0); on (2,0) red keeps (1,0) or (4,0).
    ("xstrategy", [2, COLUMN_STATE], [[3, 0], [2, 0]]),
    # 3 x 2 board, 4 penguins each: bob (0,0), al (0,1), bob (1,0), al (1,1), bob (2,0),
    # al (2,1); bob finds no free tile and is eliminated; al alone remains and wins.
    ("xref", {"row": 3, "column": 2, "players": [["bob", 1], ["al", 2]], "fish": 1}, ["al"]),
    # Placement fills a 2 x 4 board exactly: nobody moves, all score 0 and share the win.
    ("xref", {"row": 2, "column": 4, "players": [["b", 1], ["a", 1]], "fish": 5}, ["a", "b"]),
]


@pytest.mark.parametrize(("harness", "query", "expected"), SPEC_CASES)
def test_examples_derived_from_the_spec(harness: str, query: object, expected: object) -> None:
    """Each harness answers hand-derived examples as the spec says."""
    status, output = run(harness, json.dumps(query))
    assert status == 0, output
    assert json.loads(output) == expected


MALFORMED = [
    ("xboard", "{not json"),
    ("xboard", '{"position": [0, 0], "board": [[1, 2]]} 7'),
    ("xboard", '{"position": [0, 0]}'),
    ("xboard", '{"position": [0, 5], "board": [[1, 2]]}'),
    ("xboard", '{"position": [0, 0], "board": [[1, 6]]}'),
    ("xboard", '{"position": [0, 0], "board": [[1, true]]}'),
    ("xboard", '{"position": [-1, 0], "board": [[1, 2]]}'),
    ("xboard", '{"position": [0.5, 0], "board": [[1, 2]]}'),
    (
        "xstate",
        '{"board": [[1, 0]], "players": [{"color": "red", "score": 0, "places": [[0, 1]]}]}',
    ),
    ("xstate", '{"board": [[1, 1]], "players": [{"color": "pink", "score": 0, "places": []}]}'),
    ("xstate", '{"board": [[1]], "players": [{"color": "red", "score": -1, "places": []}]}'),
    (
        "xstate",
        '{"board": [[1, 1]], "players": [{"color": "red", "score": 0, "places": [[0, 0]]},'
        ' {"color": "red", "score": 0, "places": [[0, 1]]}]}',
    ),
    (
        "xstate",
        '{"board": [[1, 1]], "players": [{"color": "red", "score": 0, "places": [[0, 0]]},'
        ' {"color": "white", "score": 0, "places": [[0, 0]]}]}',
    ),
    ("xtree", json.dumps({"state": COLUMN_STATE, "from": [6, 0], "to": [4, 0]})),
    ("xtree", json.dumps({"state": COLUMN_STATE, "from": [3, 0], "to": [0, 0]})),
    ("xstrategy", json.dumps([0, COLUMN_STATE])),
    ("xstrategy", json.dumps([COLUMN_STATE])),
    ("xref", '{"row": 3, "column": 3, "players": [["a", 1]], "fish": 1}'),
    ("xref", '{"row": 3, "column": 3, "players": [["a", 1], ["b", 0]], "fish": 1}'),
    ("xref", '{"row": 3, "column": 3, "players": [["a", 1], ["b", 1]], "fish": 6}'),
    ("xref", '{"row": 0, "column": 3, "players": [["a", 1], ["b", 1]], "fish": 1}'),
    # Well-formed, but no board of that many tiles fits in memory, or even in a list index.
    (
        "xref",
        '{"row": 1000000000, "column": 1000000000, "players": [["a", 1], ["b", 1]], "fish": 1}',
    ),
    (
        "xref",
        '{"row": 100000000000000000000, "column": 3, "players": [["a", 1], ["b", 1]], "fish": 1}',
    ),
]


@pytest.mark.parametrize(("harness", "text"), MALFORMED)
def test_malformed_input_is_refused_with_status_2(harness: str, text: str) -> None:
    """Input outside the course's data definitions gets status 2 and a message."""
    status, message = run(harness, text)
    assert status == 2
    assert message.startswith(f"arena fish {harness}: ")


def arena(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "import sys; from arena.main import main; sys.exit(main())"]
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, check=False, cwd=REPO
    )


def test_the_command_reads_stdin_and_writes_one_json_value() -> None:
    """`arena fish xboard` prints the answer on stdout and exits 0."""
    done = arena("fish", "xboard", stdin='{"position":[0,0],"board":[[1,2,3],[4,0,5],[1,1,0]]}')
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "3", "")


def test_the_command_exits_2_on_malformed_input_with_nothing_on_stdout() -> None:
    """Malformed stdin: a message naming the field on stderr, nothing on stdout, status 2."""
    done = arena("fish", "xboard", stdin='{"position":[0,0],"board":[[1,9]]}')
    assert done.returncode == 2
    assert done.stdout == ""
    assert "board[0][1]" in done.stderr


@pytest.mark.parametrize("text", ["{", "[1 2]", '{"a" 1}', '"\\x"'])
def test_broken_json_in_a_fresh_process_exits_2_without_a_traceback(text: str) -> None:
    """A syntax error inside a value (json.decoder not yet loaded) is status 2 and a message."""
    done = arena("fish", "xboard", stdin=text)
    assert done.returncode == 2
    assert done.stderr.startswith("arena fish xboard: stdin is not one JSON value: ")
    assert "Traceback" not in done.stderr


def test_an_unknown_harness_is_a_usage_error() -> None:
    """`arena fish xnothing` exits 2 with usage on stderr."""
    done = arena("fish", "xnothing", stdin="")
    assert done.returncode == 2
    assert "usage" in done.stderr


@pytest.mark.parametrize(
    "text",
    [
        ' \n{"a": [1, -2, true, false, null, "x\\u00e9\\"y"]}\r\n',
        '[[0, 1], {"k": {}}]',
        '"caf\\u00e9 \\\\ \\"q\\""',
    ],
)
def test_the_json_reader_and_writer_agree_with_the_json_module(text: str) -> None:
    """The harnesses' JSON reader and writer give what the json module gives."""
    from fish.fastjson import dumps, loads

    assert loads(text) == json.loads(text)
    assert json.loads(dumps(loads(text))) == json.loads(text)


@pytest.mark.parametrize("text", ["", "   ", "[1,", "NaN", "[1] [2]", '{"a" 1}', "[Infinity]"])
def test_the_json_reader_refuses_anything_but_one_json_value(text: str) -> None:
    """Empty text, broken JSON, bare constants and two values are refused."""
    from fish.fastjson import JSONError, loads

    with pytest.raises(JSONError):
        loads(text)


def test_winner_names_are_written_as_json_strings() -> None:
    """Names with quotes and non-ASCII letters come out as valid JSON strings, sorted."""
    query = {"row": 2, "column": 4, "players": [['é"x', 1], ["b\\", 1]], "fish": 1}
    status, output = run("xref", json.dumps(query))
    assert status == 0
    assert json.loads(output) == sorted(['é"x', "b\\"])


# ------------------------------------------------ random ragged boards against the spec, naively


def spec_line(board: list[list[int]], taken: set[Pos], start: Pos, direction: int) -> list[Pos]:
    """The free tiles from ``start`` in one direction, nearest first; a missing tile is a hole."""
    out = []
    here = spec_step(*start, direction)
    while 0 <= here[0] < len(board) and 0 <= here[1] < len(board[here[0]]):
        if board[here[0]][here[1]] == 0 or here in taken:
            break
        out.append(here)
        here = spec_step(*here, direction)
    return out


def spec_answers(state: dict[str, Any], move: tuple[Pos, Pos] | None) -> dict[str, object]:
    """What xboard (from the first penguin), xstate and xtree (for ``move``) must print."""
    board = [list(row) for row in state["board"]]
    places = [[(p[0], p[1]) for p in player["places"]] for player in state["players"]]
    taken = {p for tiles in places for p in tiles}
    first = places[0][0]
    answers: dict[str, object] = {
        "xboard": sum(len(spec_line(board, set(), first, d)) for d in range(6)),
        "xstate": False,
    }
    for direction in range(6):
        line = spec_line(board, taken, first, direction)
        if line:
            # The tile left becomes a hole and scores; the board comes out rectangular.
            cols = max(map(len, board))
            after = [row + [0] * (cols - len(row)) for row in board]
            after[first[0]][first[1]] = 0
            players = [dict(player) for player in state["players"]]
            players[0]["score"] += board[first[0]][first[1]]
            players[0]["places"] = [list(line[0]), *players[0]["places"][1:]]
            answers["xstate"] = {"board": after, "players": [*players[1:], players[0]]}
            break
    if move is not None:
        (src, dst), second = move, 1 % len(places)
        board[src[0]][src[1]] = 0
        taken = (taken - {src}) | {dst}
        places[0][places[0].index(src)] = dst  # the second player may be the first, alone
        moves = [
            (p, q) for p in places[second] for d in range(6) for q in spec_line(board, taken, p, d)
        ]
        answers["xtree"] = False
        for direction in range(6):
            landing = [m for m in moves if m[1] == spec_step(*dst, direction)]
            if landing:
                answers["xtree"] = [list(p) for p in min(landing)]
                break
    return answers


def random_ragged_state(rng: random.Random) -> dict[str, Any]:
    """Rows of different lengths with holes (some empty rows), 1-4 players; the first player has
    at least one penguin."""
    width = rng.randint(1, 5)
    board = [
        [rng.choice([0, 1, 2, 3, 4, 5]) for _ in range(rng.choice([width, rng.randint(0, width)]))]
        for _ in range(rng.randint(1, 7))
    ]
    floes = [(r, c) for r, row in enumerate(board) for c, fish in enumerate(row) if fish]
    if not floes:
        return random_ragged_state(rng)
    rng.shuffle(floes)
    colors = rng.sample(["red", "white", "brown", "black"], rng.randint(1, 4))
    players = []
    for seat, color in enumerate(colors):
        count = min(len(floes), rng.randint(1 if seat == 0 else 0, 3))
        places = [list(floes.pop()) for _ in range(count)]
        players.append({"color": color, "score": rng.randint(0, 9), "places": places})
    return {"board": board, "players": players}


@pytest.mark.parametrize("seed", range(150))
def test_harnesses_answer_random_ragged_boards_as_the_spec_says(seed: int) -> None:
    """xboard, xstate and xtree agree with a naive reading of the spec on ragged boards with
    holes: missing tiles are holes, the first free neighbour in direction order, rotation, and
    the second player's move onto Q's neighbours in direction order, then the smallest."""
    rng = random.Random(seed)
    state = random_ragged_state(rng)
    first = [(p[0], p[1]) for p in state["players"][0]["places"]]
    board = state["board"]
    taken = {(p[0], p[1]) for player in state["players"] for p in player["places"]}
    moves = [(p, q) for p in first for d in range(6) for q in spec_line(board, taken, p, d)]
    move = rng.choice(moves) if moves else None
    expected = spec_answers(state, move)
    queries: dict[str, object] = {
        "xboard": {"position": list(first[0]), "board": board},
        "xstate": state,
    }
    if move is not None:
        queries["xtree"] = {"state": state, "from": list(move[0]), "to": list(move[1])}
    for harness, query in queries.items():
        status, output = run(harness, json.dumps(query))
        assert status == 0, output
        assert json.loads(output) == expected[harness], harness
