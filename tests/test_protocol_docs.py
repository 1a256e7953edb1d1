"""docs/protocol.md is complete and up to date: its generated tables match the message types
and the error catalogue, and every message kind and error code appears on the page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.codec import Codec
from protocol.docs import EXAMPLES, update
from protocol.errors import ErrorCode, tag_of
from protocol.messages import MESSAGE_TYPES, Message

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "protocol.md"


def test_the_generated_sections_are_up_to_date() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert update(text) == text, "docs/protocol.md is stale: run python docs/gen_protocol.py"


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=tag_of)
def test_every_message_kind_has_a_row_and_an_example_line(cls: type[Message]) -> None:
    text = PAGE.read_text(encoding="utf-8")
    tag = tag_of(cls)
    assert f"| `{tag}` |" in text
    lines = [line for line in text.splitlines() if line.startswith(f'{{"type":"{tag}"')]
    assert lines, f"no example line of {tag}"
    # The example is a message the codec accepts, equal to the one it was generated from.
    codec = Codec(accept=cls)
    codec.receive_data(lines[0].encode() + b"\n")
    assert codec.next_message() == EXAMPLES[cls]


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_is_documented(code: ErrorCode) -> None:
    assert f"| `{code.value}` |" in PAGE.read_text(encoding="utf-8")


def test_every_code_named_in_the_prose_exists() -> None:
    """A snake_case word in backticks is an error code or a message kind: the prose names no
    code the server never sends."""
    known = {code.value for code in ErrorCode} | {tag_of(cls) for cls in MESSAGE_TYPES}
    named = set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", PAGE.read_text(encoding="utf-8")))
    assert named - known == set()


def test_the_page_states_the_limits_a_client_must_know() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for fact in ("10 s", "100th error", "10 minutes", "512 messages", "60-93 KB", "y grows"):
        assert fact in text, fact
    for reason in ("crossed", "trap", "attacked"):
        assert f"`{reason}`" in text


def test_the_readme_links_the_protocol_first() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", readme)
    assert links[0] == "docs/protocol.md"
