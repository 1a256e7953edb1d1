"""What several commands share on their command lines: argparse value types (a bad value is
refused by argparse itself, with the flag named and exit status 2) and the one ``--config
KEY=VALUE ...`` option with its parser."""

from __future__ import annotations

import argparse
import math
from typing import Any

from arena.errors import UsageError

__all__ = [
    "add_config_option",
    "config_pairs",
    "parse_config",
    "parse_value",
    "positive_seconds",
    "web_address",
]


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero ("0", "-1", "nan", "inf" refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: the time limit must be positive")
    return value


def web_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` of a web page (``PORT`` alone: on 127.0.0.1; 0: any free port)."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want HOST:PORT, e.g. 127.0.0.1:8080") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be 0-65535")
    return host.strip("[]") or "127.0.0.1", number


def add_config_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--config KEY=VALUE ...``: one or more settings, and the flag may be repeated."""
    parser.add_argument(
        "--config", nargs="+", action="extend", default=[], metavar="KEY=VALUE", help=help
    )


def config_pairs(items: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict of strings; the game's own settings type them."""
    pairs: dict[str, str] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise UsageError(f"--config {item!r}: expected KEY=VALUE")
        pairs[key.strip()] = value
    return pairs


def parse_value(text: str) -> Any:
    """A --config value of a game without typed settings: an int, a float, true/false, or else
    the text itself."""
    lowered = text.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_config(items: list[str]) -> dict[str, Any]:
    """``--config`` items with each value typed by :func:`parse_value`."""
    return {key: parse_value(value) for key, value in config_pairs(items).items()}
