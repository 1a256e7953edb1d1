"""The course's test harnesses (`arena fish x...`): the course's examples, examples derived by
hand from the spec, and malformed input (exit 2, a message on stderr, nothing on stdout)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.games.fish.cli import run

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
    command = [sys.executable, "-c", "import sys; from sim.arena import main; sys.exit(main())"]
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
    from sim.games.fish.fastjson import dumps, loads

    assert loads(text) == json.loads(text)
    assert json.loads(dumps(loads(text))) == json.loads(text)


@pytest.mark.parametrize("text", ["", "   ", "[1,", "NaN", "[1] [2]", '{"a" 1}', "[Infinity]"])
def test_the_json_reader_refuses_anything_but_one_json_value(text: str) -> None:
    """Empty text, broken JSON, bare constants and two values are refused."""
    from sim.games.fish.fastjson import JSONError, loads

    with pytest.raises(JSONError):
        loads(text)


def test_winner_names_are_written_as_json_strings() -> None:
    """Names with quotes and non-ASCII letters come out as valid JSON strings, sorted."""
    query = {"row": 2, "column": 4, "players": [['é"x', 1], ["b\\", 1]], "fish": 1}
    status, output = run("xref", json.dumps(query))
    assert status == 0
    assert json.loads(output) == sorted(['é"x', "b\\"])
