"""The Penguins board file: every valid variant parses, every fault is named by line and field,
and the writer gives back unchanged bytes where nothing changed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.penguins import BoardFile, BoardFileError, PlayerLine, parse

VALID = "2 3\n10 20 01\n00 30 10\nalice 1 1\n"

#: name -> text of a file that follows the format.
VALID_FILES = {
    "canonical": VALID,
    "trailing spaces": "2 3   \n10 20 01 \n00 30 10  \nalice 1 1     \n",
    "crlf": VALID.replace("\n", "\r\n"),
    "crlf and trailing spaces": "2 3 \r\n10 20 01  \r\n00 30 10\r\nalice 1 1 \r\n",
    "no final newline": VALID.rstrip("\n"),
    "no players yet": "2 3\n10 20 10\n00 30 10\n",
    "only some players": "2 3\n10 20 01\n00 30 02\nalice 1 1\nbob 2 1\n",
    "gap in player numbers": "2 3\n10 20 01\n00 30 03\nalice 1 1\ncarol 3 1\n",
    "trailing blank lines": VALID + "\n  \n",
    "byte order mark": "\ufeff" + VALID,
    "trailing tabs": "2 3\t\n10 20 01\t\n00 30 10\nalice 1 1\t\n",
    "id of any non-space text": "2 3\n10 20 01\n00 30 10\nZespół_7/ü 1 1\n",
    "big score": "2 3\n10 20 01\n00 30 10\nalice 1 123456\n",
}

#: name -> (text, line, field) of a file that breaks the format.
INVALID_FILES = {
    "empty file": ("", 1, None),
    "header without n": ("2\n10 20 01\n00 30 10\n", 1, 2),
    "header with a third field": ("2 3 4\n10 20 01\n00 30 10\n", 1, 3),
    "header not a number": ("2 x\n10 20 01\n00 30 10\n", 1, 2),
    "header zero rows": ("0 3\n", 1, 1),
    "header negative": ("-2 3\n", 1, 1),
    "fish digit out of range": ("2 3\n10 40 01\n00 30 10\nalice 1 1\n", 2, 2),
    "fish digit 9": ("2 3\n10 20 01\n00 30 90\nalice 1 1\n", 3, 3),
    "field of one digit": ("2 3\n10 2 01\n00 30 10\nalice 1 1\n", 2, 2),
    "field of three digits": ("2 3\n10 20 011\n00 30 10\nalice 1 1\n", 2, 3),
    "field with a letter": ("2 3\n10 2a 01\n00 30 10\nalice 1 1\n", 2, 2),
    "penguin on a floe with fish": ("2 3\n10 21 00\n00 30 10\nalice 1 1\n", 2, 2),
    "short row": ("2 3\n10 20 01\n00 30\nalice 1 1\n", 3, 3),
    "long row": ("2 3\n10 20 01 10\n00 30 10\nalice 1 1\n", 2, 4),
    "empty row": ("2 3\n10 20 01\n\nalice 1 1\n", 3, 1),
    "missing row at the end of the file": ("2 3\n10 20 10\n", 3, None),
    "missing row before the players": ("2 3\n10 20 01\nalice 1 1\n", 3, None),
    "two spaces between fields": ("2 3\n10  20 01\n00 30 10\nalice 1 1\n", 2, 2),
    "leading space": ("2 3\n 10 20 01\n00 30 10\nalice 1 1\n", 2, 1),
    "tab between fields": ("2 3\n10\t20 01\n00 30 10\nalice 1 1\n", 2, 1),
    "player number with no player line": ("2 3\n10 20 01\n00 30 02\nalice 1 1\n", 3, 3),
    "penguins but no player lines": ("2 3\n10 20 01\n00 30 10\n", 2, 3),
    "duplicate player numbers": ("2 3\n10 20 01\n00 30 10\nalice 1 1\nbob 1 0\n", 5, 2),
    "duplicate player ids": ("2 3\n10 20 01\n00 30 02\nalice 1 1\nalice 2 1\n", 5, 1),
    "player number 0": ("2 3\n10 20 01\n00 30 10\nalice 0 1\n", 4, 2),
    "player number 10": ("2 3\n10 20 01\n00 30 10\nalice 10 1\n", 4, 2),
    "player number not a number": ("2 3\n10 20 01\n00 30 10\nalice one 1\n", 4, 2),
    "negative score": ("2 3\n10 20 01\n00 30 10\nalice 1 -1\n", 4, 3),
    "score not a number": ("2 3\n10 20 01\n00 30 10\nalice 1 x\n", 4, 3),
    "player line without score": ("2 3\n10 20 01\n00 30 10\nalice 1\n", 4, 3),
    "player line with an extra field": ("2 3\n10 20 01\n00 30 10\nalice 1 1 7\n", 4, 4),
    "blank line between player lines": (
        "2 3\n10 20 01\n00 30 02\nalice 1 1\n\nbob 2 1\n",
        5,
        None,
    ),
    "old mac line ends": ("2 3\r10 20 01\r00 30 10\ralice 1 1\r", 1, 2),
}


@pytest.mark.parametrize("text", VALID_FILES.values(), ids=VALID_FILES.keys())
def test_valid_files_parse(text: str) -> None:
    """A file that follows the format parses, with the board of its rows."""
    board = parse(text)
    assert (board.rows, board.cols) == (2, 3)
    assert len(board.fish) == len(board.owner) == 6
    assert board.fish[:2] == [1, 2]
    assert board.fish[3] == 0  # the hole


@pytest.mark.parametrize("text", VALID_FILES.values(), ids=VALID_FILES.keys())
def test_unchanged_file_is_written_back_byte_for_byte(text: str) -> None:
    """Rendering a parsed file without changes gives exactly the original text."""
    assert parse(text).render() == text


@pytest.mark.parametrize(
    ("text", "line", "field"), INVALID_FILES.values(), ids=INVALID_FILES.keys()
)
def test_invalid_files_name_line_and_field(text: str, line: int, field: int | None) -> None:
    """A file that breaks the format is rejected with the line and field of the fault."""
    with pytest.raises(BoardFileError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.field) == (line, field)
    where = f"line {line}" if field is None else f"line {line}, field {field}:"
    assert str(caught.value).startswith(where)


HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        (f"{HUGE} 2\n10 10\n", 1, 1),
        (f"1 {HUGE}\n10 10\n", 1, 2),
        (f"1 2\n10 10\na {HUGE} 0\n", 3, 2),
        (f"1 2\n10 10\na 1 {HUGE}\n", 3, 3),
        ("1 2\n10 10\na 1 1234567890\n", 3, 3),
    ],
    ids=["rows", "columns", "number", "score", "score beyond a C int"],
)
def test_overlong_numbers_are_a_fault_of_the_file(text: str, line: int, field: int) -> None:
    """Spec: the game master must survive anything a player writes, and a wrong file gets its
    line and field named. A 5000-digit score or size is such a fault (int() alone raises a
    plain ValueError past 4300 digits); so is a score past 9 digits, more than a C int holds."""
    with pytest.raises(BoardFileError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.field) == (line, field)
    assert len(str(caught.value)) < 200


def test_largest_accepted_score_is_nine_digits() -> None:
    """A score of 999999999 is still read (no real game comes near it)."""
    assert parse("1 2\n10 10\na 1 999999999\n").players[0].score == 999_999_999


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("\ufeff1 2\n10 10\n", 1),
        ("1 2\t\n10 10\n", 1),
        ("1 2\n10 10 \t \na 1 0\n", 2),
        ("1 2\r\n10 10\r\r\na 1 0\r\n", 2),
        ("1 2\n10 10\na 1 0\n\t\n", 4),
    ],
    ids=["byte order mark", "tab after header", "tab among spaces", "two CRs", "tab line"],
)
def test_strict_parsing_refuses_what_only_the_lenient_parser_tolerates(
    text: str, line: int
) -> None:
    """Spec: lines may end with spaces, and \\r\\n is accepted; nothing else. Our player reads
    a byte order mark or a trailing tab anyway, but a game master passing the file on to other
    programs refuses it (strict), naming the line."""
    parse(text)  # tolerated when only we read it
    with pytest.raises(BoardFileError) as caught:
        parse(text, strict=True)
    assert caught.value.line == line


@pytest.mark.parametrize(
    "text",
    ["1 2   \r\n10 10 \r\nal 1 0  \r\nbo 2 0\r\n  \r\n", "1 2\n10 10  \nal 1 0"],
)
def test_strict_parsing_takes_trailing_spaces_crlf_and_no_final_newline(text: str) -> None:
    """Everything the format allows passes the strict check."""
    assert parse(text, strict=True).render() == text


def test_penguin_and_fish_are_read_per_field() -> None:
    """Each field's first digit is its fish and its second the player standing there."""
    board = parse("1 3\n30 01 02\na 1 1\nb 2 1\n")
    assert board.fish == [3, 0, 0]
    assert board.owner == [0, 1, 2]
    assert [(p.ident, p.number, p.score, p.line) for p in board.players] == [
        ("a", 1, 1, 2),
        ("b", 2, 1, 3),
    ]


def test_changed_fields_are_rewritten_in_place() -> None:
    """Only the changed fields of a row change; its trailing spaces and CRLF stay."""
    text = "2 3 \r\n10 20 01  \r\n00 30 10\r\nalice 1 1 \r\n"
    board = parse(text)
    board.owner[2], board.owner[1], board.fish[1] = 0, 1, 0  # 01 leaves, lands on 20
    board.players[0].score += 2
    assert board.render() == "2 3 \r\n10 01 00  \r\n00 30 10\r\nalice 1 3 \r\n"


def test_new_player_line_goes_after_the_last_player() -> None:
    """A newcomer's line follows the last non-blank line, with the file's line ending."""
    board = parse("1 2\r\n10 01\r\nalice 1 1\r\n\r\n")
    board.fish[0], board.owner[0] = 0, 2
    board.add_player("bob", 2, 1)
    assert board.render() == "1 2\r\n02 01\r\nalice 1 1\r\nbob 2 1\r\n\r\n"


def test_new_player_line_in_a_file_without_final_newline() -> None:
    """Adding a line to a file without a final newline separates it and adds none after."""
    board = parse("1 2\n10 10")
    board.add_player("bob", board.next_free_number() or 0, 0)
    assert board.render() == "1 2\n10 10\nbob 1 0"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 2\r\n10 10", "1 2\r\n10 10\r\nbob 1 0"),
        ("1 2\r\n10 10\r\nal 1 0", "1 2\r\n10 10\r\nal 1 0\r\nbob 2 0"),
        ("1 2\r\n10 10\r\nal 1 0  ", "1 2\r\n10 10\r\nal 1 0  \r\nbob 2 0"),
        ("1 2\r\n10 10\r\n", "1 2\r\n10 10\r\nbob 1 0\r\n"),
    ],
)
def test_new_player_line_in_a_crlf_file_keeps_every_break_crlf(text: str, expected: str) -> None:
    """Spec: written files keep the format, whose lines end in \\n or \\r\\n. In a CRLF file
    without a final newline, the new line is joined by \\r\\n and ends the file bare, as the
    old last line did: no bare \\n between lines, no lone \\r at the end."""
    board = parse(text)
    board.add_player("bob", board.next_free_number() or 0, 0)
    assert board.render() == expected
    assert parse(board.render()).player("bob") is not None


@pytest.mark.parametrize(
    ("numbers", "expected"),
    [([], 1), ([1], 2), ([1, 3], 4), ([9], 1), ([1, 2, 4, 5, 6, 7, 8, 9], 3), (range(1, 10), None)],
)
def test_next_free_number(numbers: list[int], expected: int | None) -> None:
    """A newcomer takes one more than the highest number, else the lowest free, else none."""
    board = BoardFile(1, 1, [1], [0], [PlayerLine(f"p{n}", n, 0) for n in numbers])
    assert board.next_free_number() == expected


def test_board_made_in_memory_renders_canonically() -> None:
    """A BoardFile built from lists renders in the format and parses back to the same board."""
    board = BoardFile(2, 2, [1, 0, 3, 0], [0, 2, 0, 0], [PlayerLine("x", 2, 5)])
    text = board.render()
    assert text == "2 2\n10 02\n30 00\nx 2 5\n"
    again = parse(text)
    assert (again.fish, again.owner) == ([1, 0, 3, 0], [0, 2, 0, 0])


@pytest.mark.parametrize(("ident", "number"), [("two words", 2), ("", 2), ("bob", 1), ("bob", 10)])
def test_add_player_refuses_bad_lines(ident: str, number: int) -> None:
    """An id with spaces, an empty id, a taken number or one outside 1-9 is refused."""
    board = parse(VALID)
    with pytest.raises(ValueError, match="player"):
        board.add_player(ident, number)


# -- robustness: whatever a program writes, the parser answers with a BoardFileError or a board


def parse_or_error(text: str) -> BoardFile | BoardFileError:
    """The board of ``text``, or the error naming its fault (any other exception escapes)."""
    try:
        return parse(text)
    except BoardFileError as error:
        return error


FIELD = st.sampled_from(["00", "10", "20", "30"])


@st.composite
def board_texts(draw: st.DrawFn) -> str:
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 4))
    lines = [f"{rows} {cols}"]
    lines += [" ".join(draw(st.lists(FIELD, min_size=cols, max_size=cols))) for _ in range(rows)]
    lines += [f"p{n} {n} {draw(st.integers(0, 40))}" for n in range(1, draw(st.integers(0, 3)) + 1)]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return ending.join(lines) + ending


@settings(max_examples=150, deadline=None)
@given(board_texts(), st.data())
def test_any_edit_of_a_file_parses_or_names_its_fault(text: str, data: st.DataObject) -> None:
    """Replacing, deleting or inserting a character anywhere gives a board or a BoardFileError
    with a line inside the file, never another exception."""
    at = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.sampled_from(["", "0", "4", "9", " ", "\n", "\r", "x", "-", "\t"]))
    cut = data.draw(st.integers(0, 2))
    edited = text[:at] + insert + text[at + cut :]
    result = parse_or_error(edited)
    if isinstance(result, BoardFileError):
        assert 1 <= result.line <= edited.count("\n") + 2
        assert result.field is None or result.field >= 1
    else:
        assert result.render() == edited


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_never_crashes_the_parser(text: str) -> None:
    """Any text at all parses or fails with a BoardFileError."""
    result = parse_or_error(text)
    assert isinstance(result, BoardFile) or result.line >= 1
