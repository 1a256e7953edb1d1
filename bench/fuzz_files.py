"""The files a user hands in, fuzzed (:mod:`bench.fuzz_targets`): the Penguins board file and the
teams TOML (as parsed, and as a file). For each, hostile input and a check that it gives a value
or the documented error, which names where the fault is.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from arena.tournament.players import PLAYERS
from bench.fuzz_wire import caught
from protocol.penguins import BoardFile, BoardFileError, encode, parse
from server.competition.teams import TeamsError, load_teams, parse_teams

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
