"""The framers a peer's bytes reach, fuzzed (:mod:`bench.fuzz_targets`): the dungeon's lines, the
framing base's lines, Fish's JSON stream, the Labyrinth's commands. For each, the tricky pieces
hostile input is made of, and a check that nothing but the documented error type escapes, every
rejection is one of the documented causes, and what comes out is the same however the bytes are
split into reads.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from protocol.codec import NEED_DATA, Codec, ErrorCause, RemoteProtocolError
from protocol.fish import NEED_DATA as FISH_NEED_DATA
from protocol.fish import RemoteProtocolError as FishError
from protocol.fish import StreamCodec
from protocol.framing import FrameError, LineFramer
from protocol.labyrinth import MAX_COMMAND, CommandDecoder
from protocol.messages import ClientMessage

# --- splitting ----------------------------------------------------------------------------------


def caught(call: Callable[[], Any], error: type[Exception]) -> tuple[Any, Exception | None]:
    """``call()``'s value, or the ``error`` it raised (anything else escapes: a finding)."""
    try:
        return call(), None
    except error as raised:
        return None, raised


def split(data: bytes, cuts: Sequence[int]) -> list[bytes]:
    """``data`` cut at the positions ``cuts`` (any, in any order): the reads a peer's bytes may
    arrive in."""
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


def cuts() -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 1 << 16), max_size=12)


def stream(pieces: Sequence[bytes]) -> st.SearchStrategy[bytes]:
    """Bytes made of ``pieces`` (the framer's tricky parts) and arbitrary bytes, joined."""
    part = st.one_of(st.sampled_from(list(pieces)), st.binary(max_size=12))
    return st.lists(part, max_size=24).map(b"".join)


# --- the dungeon's JSON lines (protocol/codec.py) ------------------------------------------------

#: A small line limit, so that over-long lines, and their ends, are met often.
DUNGEON_MAX_LINE = 40
DUNGEON_PIECES = (
    b"\n",
    b"\r\n",
    b"\r",
    b" ",
    b"\t",
    b"\n\n\n",
    b" \n \n",
    b'{"type":"move","to":3}',
    b'{"type":"solution","sat":[1,-2]}',
    b'{"type":"start","team":0,"agent":1}',
    b'{"type":"move","to":"a"}',
    b'{"type":"nope"}',
    b"x" * 39,
    b"x" * 41,
    b" " * 45,
    b'"\\ud800"',
    b"\xff\xfe",
    b"[[[[[[[[",
)


def dungeon_outcome(chunks: Sequence[bytes]) -> tuple[list[object], int]:
    """What a server's codec makes of ``chunks`` then the end of the stream: messages and
    errors (cause, fatal, text) in order, and the blank lines it counted."""
    codec = Codec(accept=ClientMessage, max_line=DUNGEON_MAX_LINE)
    out: list[object] = []
    for chunk in [*chunks, b""]:
        codec.receive_data(chunk)
        while True:
            message, error = caught(codec.next_message, RemoteProtocolError)
            if isinstance(error, RemoteProtocolError):
                assert isinstance(error.cause, ErrorCause)
                assert error.text, "a rejection says what"
                out.append((error.cause, error.fatal, error.text))
                continue
            if message is NEED_DATA:
                break
            out.append(message)
        assert codec.buffered_bytes <= DUNGEON_MAX_LINE + 1
    return out, codec.blank_lines


def check_dungeon(data: bytes, at: list[int]) -> None:
    assert dungeon_outcome(split(data, at)) == dungeon_outcome([data])
    assert dungeon_outcome([data[i : i + 1] for i in range(len(data))]) == dungeon_outcome([data])


# --- the framing base's lines (protocol/framing.py) ----------------------------------------------

LINES_MAX = 8


def lines_outcome(chunks: Sequence[bytes]) -> list[object]:
    framer = LineFramer(LINES_MAX)
    out: list[object] = []
    for chunk in [*chunks, b""]:
        framer.receive_data(chunk)
        while (line := framer.next_line()) is not NEED_DATA:
            out.append(line if isinstance(line, bytes) else line.cause)
            assert isinstance(line, bytes | FrameError)
        assert framer.buffered_bytes <= LINES_MAX + 1
    out.append(framer.blank_lines)
    return out


def check_lines(data: bytes, at: list[int]) -> None:
    assert lines_outcome(split(data, at)) == lines_outcome([data])


# --- Fish's JSON values back to back (protocol/fish.py) -------------------------------------------

FISH_MAX_VALUE = 48
FISH_PIECES = (
    b" ",
    b"\n",
    b"[",
    b"]",
    b"{",
    b"}",
    b'"',
    b"\\",
    b'\\"',
    b",",
    b":",
    b"12",
    b"-0.5e3",
    b"true",
    b"null",
    b"NaN",
    b"1e999",
    b'["setup",[{"board":[[1,2]]}]]',
    b'{"a":[1,{"b":"]"}]}',
    b'"a\\u00e9\\ud800"',
    b"\xc3\xa9",
    b"\xff",
    b"x" * 50,
)


def fish_outcome(chunks: Sequence[bytes]) -> list[object]:
    """Values then, if any, the one error (its cause) the codec raises for good."""
    codec = StreamCodec(max_value=FISH_MAX_VALUE)
    out: list[object] = []
    for chunk in [*chunks, b""]:
        codec.receive_data(chunk)
        while True:
            value, error = caught(codec.next_value, FishError)
            if isinstance(error, FishError):
                assert error.cause in ("not_json", "too_large", "truncated"), error.cause
                _, again = caught(codec.next_value, FishError)
                assert again is error, "an error is final: the same one again"
                out.append(("error", error.cause))
                return out
            if value is FISH_NEED_DATA:
                break
            out.append(value)
        assert codec.buffered_bytes <= len(b"".join(chunks))
    assert codec.eof
    return out


def check_fish(data: bytes, at: list[int]) -> None:
    assert fish_outcome(split(data, at)) == fish_outcome([data])


# --- the Labyrinth's commands (protocol/labyrinth.py) ---------------------------------------------

LABYRINTH_PIECES = (
    b"CLIENT_NAME me",
    b"WAIT_GAME ASTAR timeout=5",
    b"GET_GAME_DATA",
    b"PLAY_MOVE 4 0",
    b"PLAY_MOVE 1 10",
    b"GET_MOVE",
    b" ",
    b"\n",
    b"\r\n",
    b"\x00",
    b"\xff",
    b"\x01",
    b"A" * 300,
)


def labyrinth_outcome(writes: Sequence[Sequence[bytes]]) -> list[object]:
    """The commands a server hears from a client that sends each write (as its reads) and then
    waits for the answer; then closes."""
    decoder = CommandDecoder()
    out: list[object] = []

    def take() -> None:
        while (command := decoder.next_command()) is not None:
            out.append(command if isinstance(command, str) else ("malformed", str(command)))

    for reads in writes:
        for read in filter(None, reads):  # b"" is the end of the stream, sent below
            decoder.receive_data(read)
            take()
            assert decoder.buffered_bytes <= MAX_COMMAND + 2
        decoder.end_of_write()
        take()
    decoder.receive_data(b"")
    take()
    return out


def check_labyrinth(writes: list[bytes], at: list[int]) -> None:
    whole = labyrinth_outcome([[write] for write in writes])
    assert labyrinth_outcome([split(write, at) for write in writes]) == whole
    bytewise = [[write[i : i + 1] for i in range(len(write))] for write in writes]
    assert labyrinth_outcome(bytewise) == whole
