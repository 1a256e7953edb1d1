"""The one logging setup (arena.logs): the server's own log on stderr, read by people on a
terminal and by programs everywhere else (issue 3: "human-readable on a terminal and JSON
otherwise")."""

from __future__ import annotations

import io
import json
import re

import pytest
import structlog

from arena.logs import configure_logging


class Terminal(io.StringIO):
    """A text stream that says it is a terminal, as stderr does in an interactive shell."""

    def isatty(self) -> bool:
        return True


def test_not_a_terminal_gets_one_json_object_per_line() -> None:
    """Redirected to a file or a pipe, each event is one JSON line with its key/values."""
    stream = io.StringIO()
    configure_logging(stream=stream)
    structlog.get_logger().info("slot_taken", team=1, agent=4)
    [line] = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["event"] == "slot_taken"
    assert (record["team"], record["agent"], record["level"]) == (1, 4, "info")
    assert record["timestamp"].endswith("Z")


def test_a_terminal_gets_readable_lines_not_json() -> None:
    """On a terminal the same event is a readable line naming the event and its values."""
    stream = Terminal()
    configure_logging(stream=stream)
    structlog.get_logger().info("slot_taken", team=1, agent=4)
    [line] = stream.getvalue().splitlines()
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)
    text = re.sub(r"\x1b\[[0-9;]*m", "", line)  # colours, when the terminal gets them
    assert "slot_taken" in text
    assert "team=1" in text
    assert "agent=4" in text


def test_events_below_the_level_are_dropped() -> None:
    """At level warning, info events are not written at all."""
    stream = io.StringIO()
    configure_logging(level="warning", stream=stream)
    log = structlog.get_logger()
    log.info("slot_taken", team=0, agent=0)
    log.warning("connection_killed", reason="outbox_full")
    [line] = stream.getvalue().splitlines()
    assert json.loads(line)["event"] == "connection_killed"
