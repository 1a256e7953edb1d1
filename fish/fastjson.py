"""JSON in and out for the harnesses without importing ``json``.

``import json`` pulls in ``re`` and ``enum`` (about a quarter of a harness's whole run). The C
scanner and string encoder behind the json module live in the builtin ``_json``; this module
drives them directly. Only error paths import ``json.decoder`` (for its exception class).
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["JSONError", "dumps", "loads"]

_WHITESPACE = " \t\n\r"


class JSONError(ValueError):
    """The text is not exactly one JSON value."""


def _no_constant(name: str) -> Any:
    raise JSONError(f"{name} is not JSON")


class _Context:
    """The attributes the C scanner reads from a json.JSONDecoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_no_constant)
    memo: dict[str, str] = {}  # noqa: RUF012  (read by the C scanner, like JSONDecoder's)


_scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed like JSONDecoder


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def loads(text: str) -> Any:
    """The one JSON value in ``text`` (surrounding whitespace allowed); raises JSONError."""
    start = _skip(text, 0)
    try:
        try:
            value, end = _scan(text, start)
        except SystemError:
            # The C scanner raises its syntax errors with the json.decoder module it finds in
            # sys.modules; when that is not loaded yet it returns NULL with no exception set.
            # Load it (error path only) and scan again to get the real error.
            import json.decoder  # noqa: F401

            value, end = _scan(text, start)
    except StopIteration as stop:
        raise JSONError(f"expected a JSON value at character {stop.value}") from None
    except ValueError as error:  # json.decoder.JSONDecodeError, or a bad constant
        raise JSONError(str(error)) from None
    except RecursionError:
        raise JSONError("the value is nested too deeply") from None
    end = _skip(text, end)
    if end != len(text):
        raise JSONError(f"extra data after the JSON value at character {end}")
    return value


def dumps(value: object) -> str:
    """Compact JSON text of a value made of dicts, lists, strings, ints, bools and None."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, str):
        text: str = _json.encode_basestring_ascii(value)
        return text
    if isinstance(value, list | tuple):
        return "[" + ",".join(map(dumps, value)) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{dumps(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")
