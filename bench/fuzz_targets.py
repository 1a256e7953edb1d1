"""What is fuzzed, shared by the tests (tests/test_fuzz.py: few examples, always the same) and
``python -m bench fuzz`` (many, fresh ones): for every framer a peer's bytes reach
(:mod:`bench.fuzz_wire`) and every file a user hands in (:mod:`bench.fuzz_files`), a hypothesis
strategy of hostile input and a check of the properties that must hold for any of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from bench.fuzz_files import (
    BOARD_PIECES,
    TOML_PIECES,
    check_board,
    check_teams,
    check_teams_file,
    in_a_folder,
    teams_documents,
)
from bench.fuzz_wire import (
    DUNGEON_PIECES,
    FISH_PIECES,
    LABYRINTH_PIECES,
    check_dungeon,
    check_fish,
    check_labyrinth,
    check_lines,
    cuts,
    stream,
)

__all__ = ["TARGETS", "Target"]


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
