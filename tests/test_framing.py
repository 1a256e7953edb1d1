"""The framing base (protocol/framing.py): lines out of a byte stream, the same in any chunking,
fed whole or one byte at a time; each game's codec frames on it."""

from __future__ import annotations

import pytest

from protocol.framing import NEED_DATA, FrameError, LineFramer, RemoteProtocolError


def framed(data: bytes, *, bytewise: bool, max_line: int = 5, **options: bool) -> list[object]:
    framer = LineFramer(max_line, **options)
    chunks = [data[i : i + 1] for i in range(len(data))] if bytewise else [data]
    out: list[object] = []
    for chunk in [*chunks, b""]:
        framer.receive_data(chunk)
        while (line := framer.next_line()) is not NEED_DATA:
            out.append(line if isinstance(line, bytes) else line.cause)
        assert framer.buffered_bytes <= max_line + 1
    return [*out, framer.blank_lines]


@pytest.mark.parametrize("bytewise", [False, True])
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # a line ends at "\n"; a "\r" before it stays for the codec's whitespace
        (b"ab\r\nc\n", [b"ab\r", b"c", 0]),
        # blank lines are skipped and counted
        (b"\n \n\t\r\nab\n\n", [b"ab", 4]),
        # an over-long line is reported once, its rest dropped up to its newline
        (b"x" * 10 + b"\nc\n", ["line_too_long", b"c", 0]),
        # the limit does not count a "\r\n" ending
        (b"abcde\r\nabcdef\n", [b"abcde\r", "line_too_long", 0]),
        # the stream ends inside a line
        (b"ab\ncd", [b"ab", "incomplete_line", 0]),
        # ... or inside a blank one, which is no fault
        (b"ab\n  ", [b"ab", 0]),
    ],
)
def test_lines_come_out_the_same_in_any_chunking(
    data: bytes, expected: list[object], bytewise: bool
) -> None:
    """Each case, fed whole and one byte at a time, gives the same lines, faults and count of
    blank lines."""
    assert framed(data, bytewise=bytewise) == expected


@pytest.mark.parametrize("bytewise", [False, True])
def test_a_line_may_end_where_its_writer_says(bytewise: bool) -> None:
    """With the stream's end as a delimiter (the Labyrinth's bare commands), the held bytes at
    the end are a line, and ``end_line`` ends one anywhere."""
    assert framed(b"ab\ncd", bytewise=bytewise, end_is_delimiter=True) == [b"ab", b"cd", 0]
    framer = LineFramer(5)
    framer.receive_data(b"GET_M")
    assert framer.next_line() is NEED_DATA
    framer.end_line()
    assert framer.next_line() == b"GET_M"
    framer.receive_data(b"x" * 9)
    framer.end_line()  # the over-long line ends here: what follows is a new line
    framer.receive_data(b"ok\n")
    fault = framer.next_line()
    assert isinstance(fault, FrameError)
    assert fault.cause == "line_too_long"
    assert [framer.next_line(), framer.next_line()] == [b"ok", NEED_DATA]


def test_errors_say_whose_fault_and_whether_to_close() -> None:
    """A peer's error is fatal by default; a game's error class may say otherwise."""

    class Answered(RemoteProtocolError):
        fatal = False

    assert RemoteProtocolError("bad").fatal
    assert not Answered("bad").fatal
    assert Answered("bad", "x", fatal=True).fatal
    assert RemoteProtocolError("bad", field="to").field == "to"
