"""What is fuzzed, shared by the tests (tests/test_fuzz.py: few examples, always the same) and
``python -m bench fuzz`` (many, fresh ones): for every framer a peer's bytes reach and every file
a user hands in, a hypothesis strategy of hostile input and a check of the properties that must
hold for any of it.

Framers (the dungeon's lines, the network layer's lines, Fish's JSON stream, the Labyrinth's
commands): nothing but the documented error type escapes, every rejection is one of the
documented causes, and what comes out is the same however the bytes are split into reads.
Files (the Penguins board file, the teams TOML): a value or the documented error, which names
where the fault is.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from arena.tournament.players import PLAYERS
from protocol.codec import NEED_DATA, Codec, ErrorCause, RemoteProtocolError
from protocol.fish import NEED_DATA as FISH_NEED_DATA
from protocol.fish import RemoteProtocolError as FishError
from protocol.fish import StreamCodec
from protocol.framing import FrameError, LineFramer
from protocol.labyrinth import MAX_COMMAND, CommandDecoder
from protocol.messages import ClientMessage
from protocol.penguins import BoardFile, BoardFileError, encode, parse
from server.competition.teams import TeamsError, load_teams, parse_teams

__all__ = ["TARGETS", "Target"]


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


# --- the Penguins board file (protocol/penguins.py) ---------------------------------------------

BOARD_PIECES = (
    b"2 3\n",
    b"10 20 30\n",
    b"00 31 02\n",
    b"alice 1 4\n",
    b"bob 2 0",
    b"\r\n",
    b"\n",
    b" ",
    b"\t",
    b"\xef\xbb\xbf",
    b"\xff",
    b"9" * 12,
    b"-1",
)


def check_board(data: bytes, strict: bool) -> None:
    """A board file handed in (any bytes) parses, and renders back to the same bytes, or is
    refused with a BoardFileError naming a line inside the file."""
    text = data.decode("utf-8", "surrogateescape")
    board, error = caught(lambda: parse(text, strict=strict), BoardFileError)
    if isinstance(error, BoardFileError):
        assert 1 <= error.line <= text.count("\n") + 2
        assert error.field is None or error.field >= 1
        assert error.problem
        return
    assert isinstance(board, BoardFile)
    assert encode(board.render()) == data


# --- the teams TOML (server/competition/teams.py) ---------------------------------------------

_SCALAR = st.one_of(
    st.integers(-3, 1 << 40),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=8),
    st.sampled_from(["round-robin", "swiss", "knockout", "cup", "x" * 40, "a b", "{host}"]),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
#: Built-in strategies named in a fuzzed file: known names, and names that load nothing (a
#: fuzzer must not import arbitrary modules).
_BUILTINS = st.sampled_from(["rusher", "random", "nope", "", ":", "missing.py:Bot", "a:b:c"])


def _team() -> st.SearchStrategy[dict[str, Any]]:
    fields = {
        "name": st.one_of(st.text(max_size=6), _VALUE),
        "dir": st.sampled_from([".", "missing", "", "\x00", "a\nb", "../../.."]),
        "command": st.one_of(st.lists(st.text(max_size=6), max_size=3), _VALUE),
        "builtin": _BUILTINS,
        "env": st.one_of(st.dictionaries(st.text(max_size=4), st.text(max_size=4)), _VALUE),
        "extra": _VALUE,
    }
    return st.fixed_dictionaries({}, optional=fields)


def _tournament() -> st.SearchStrategy[dict[str, Any]]:
    keys = (
        "name", "format", "games_per_pair", "seed", "match_seconds", "rounds", "seeding",
        "connect_seconds", "memory_mb", "cpu_seconds", "unknown",
    )  # fmt: skip
    fields: dict[str, st.SearchStrategy[Any]] = {key: _VALUE for key in keys}
    fields["config"] = st.one_of(
        st.dictionaries(st.sampled_from(["nodes", "agents", "x"]), _SCALAR, max_size=2), _VALUE
    )
    return st.fixed_dictionaries({}, optional=fields)


def teams_documents() -> st.SearchStrategy[dict[str, Any]]:
    """Parsed teams files: the right tables with wrong fields and values, and wrong tables."""
    return st.fixed_dictionaries(
        {},
        optional={
            "tournament": st.one_of(_tournament(), _VALUE),
            "team": st.one_of(st.lists(_team(), max_size=4), _VALUE),
            "other": _VALUE,
        },
    )


def check_teams(document: dict[str, Any], base: Path) -> None:
    """Any parsed TOML document is a tournament or one TeamsError line naming the field."""
    _, error = caught(
        lambda: parse_teams(document, base=base, source="teams.toml", players=PLAYERS), TeamsError
    )
    if error is not None:
        assert str(error).startswith("teams.toml: "), str(error)
        assert "\n" not in str(error), str(error)


TOML_PIECES = (
    b"[tournament]\n",
    b'name = "cup"\n',
    b'format = "swiss"\n',
    b"games_per_pair = 2\n",
    b"[[team]]\n",
    b'name = "a"\n',
    b'builtin = "rusher"\n',
    b'command = ["./bot", "{port}"]\n',
    b"config = { nodes = 5 }\n",
    b"= = =\n",
    b'"\n',
    b"\xff",
    b"\x00",
    b"[[[",
)


def check_teams_file(data: bytes, base: Path) -> None:
    """Any file handed in as a teams file is a tournament or one TeamsError line."""
    path = base / "teams.toml"
    path.write_bytes(data)
    _, error = caught(lambda: load_teams(path, PLAYERS), TeamsError)
    if error is not None:
        assert str(error).startswith(str(path)), str(error)
        assert "\n" not in str(error), str(error)


def in_a_folder(check: Callable[[Any, Path], None]) -> Callable[[Any], None]:
    """``check`` given a fresh empty folder (the teams file's) for each example."""

    def checked(value: Any) -> None:
        with tempfile.TemporaryDirectory() as folder:
            check(value, Path(folder))

    return checked


# --- the table of targets ------------------------------------------------------------------------


class Target:
    """One fuzzed surface: its name, the strategy of its arguments, and its check."""

    def __init__(
        self, name: str, arguments: st.SearchStrategy[tuple[Any, ...]], check: Callable[..., None]
    ) -> None:
        self.name = name
        self.arguments = arguments
        self.check = check


TARGETS = (
    Target("dungeon lines", st.tuples(stream(DUNGEON_PIECES), cuts()), check_dungeon),
    Target("framing lines", st.tuples(stream(DUNGEON_PIECES), cuts()), check_lines),
    Target("fish JSON stream", st.tuples(stream(FISH_PIECES), cuts()), check_fish),
    Target(
        "labyrinth commands",
        st.tuples(st.lists(stream(LABYRINTH_PIECES), max_size=5), cuts()),
        check_labyrinth,
    ),
    Target("penguins board file", st.tuples(stream(BOARD_PIECES), st.booleans()), check_board),
    Target("teams TOML (parsed)", st.tuples(teams_documents()), in_a_folder(check_teams)),
    Target("teams TOML (file)", st.tuples(stream(TOML_PIECES)), in_a_folder(check_teams_file)),
)
