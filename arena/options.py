"""What several commands share on their command lines: the parser class (its errors are one
line), argparse value types (a bad value is refused by argparse itself, with the flag named and
exit status 2: one rule per kind of value, the same in every command) and the one ``--config
KEY=VALUE ...`` option with its parser."""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from arena.errors import EXIT_USAGE, UsageError

__all__ = [
    "LOG_LEVELS",
    "MAX_SEED",
    "ArgumentParser",
    "add_config_option",
    "config_pairs",
    "count",
    "describe",
    "dungeon_rules",
    "log_level",
    "parse_config",
    "parse_value",
    "png_file",
    "port",
    "positive_count",
    "positive_seconds",
    "seed",
    "server_port",
    "web_address",
]

#: Largest seed: a signed 64-bit integer, so every match log can be read in any language.
MAX_SEED = 2**63 - 1
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


#: reStructuredText a docstring may carry: ``literal``, :role:`target`, `link`_.
_MARKUP = re.compile(r"``(.+?)``|:[a-z]+:`~?(.+?)`|`([^`]+?)`_")


def plain(text: str) -> str:
    """Text with reStructuredText markup taken off (``arena match`` -> arena match)."""
    return _MARKUP.sub(lambda found: next(group for group in found.groups() if group), text)


def describe(doc: str | None) -> str:
    """A --help description from a module docstring: its first paragraph in plain words, without
    the leading ``arena NAME``: (the usage line above it names the command)."""
    first = " ".join((doc or "").split("\n\n", 1)[0].split())
    head, colon, rest = first.partition(": ")
    if colon and head.startswith("``arena "):
        first = rest[:1].upper() + rest[1:]
    return plain(first)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the error on one line: ``arena serve: argument --port: ...`` and a pointer
    to ``--help`` instead of the usage block (status 2, as argparse); its help in plain words,
    without reStructuredText markup."""

    def format_help(self) -> str:
        return plain(super().format_help())

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _integer(text: str, wanted: str = "a whole number") -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {wanted}") from None


def seed(text: str) -> int:
    """A seed: a whole number from 0 to 2**63-1, the one rule of every command."""
    value = _integer(text, f"a seed (a whole number from 0 to {MAX_SEED})")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text!r}: a seed is a whole number from 0 to {MAX_SEED}")
    return value


def port(text: str) -> int:
    """A TCP port to listen on: 0 (any free port) to 65535."""
    value = _integer(text, "a port (0 to 65535)")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return value


def server_port(text: str) -> int:
    """A server's TCP port to connect to: 1 to 65535."""
    value = _integer(text, "a port to connect to (1 to 65535)")
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port to connect to (1 to 65535)")
    return value


def web_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` of a web page (``PORT`` alone: on 127.0.0.1; 0: any free port)."""
    host, _, number = text.rpartition(":")
    value = _integer(number, "HOST:PORT, e.g. 127.0.0.1:8080")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be 0 to 65535")
    return host.strip("[]") or "127.0.0.1", value


def count(text: str) -> int:
    """A number of things that may be zero."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 0 or more")
    return value


def positive_count(text: str) -> int:
    """A number of things (matches, workers, columns, steps): 1 or more."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected at least 1")
    return value


def log_level(text: str) -> str:
    """A log level by name, any case."""
    if text.lower() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(LOG_LEVELS)}")
    return text.lower()


def png_file(text: str) -> Path:
    """A picture to write: a file name ending in .png (checked before any work is done)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; give a file name")
    if path.suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(f"{text!r}: the file name must end in .png")
    return path


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero ("0", "-1", "nan", "inf" refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: the time limit must be positive")
    return value


def add_time_options(parser: argparse.ArgumentParser, default: str, whose: str) -> None:
    """``--time cpu|wall`` and ``--cpu-budget SECONDS`` (docs/fair-time.md); ``whose``: the
    programs fair time can measure with this command."""
    parser.add_argument(
        "--time", choices=("cpu", "wall"), default=default,
        help=f"order the two teams' requests by the CPU each had used (cpu: fair time, for "
        f"{whose}) or by arrival (wall); default {default}",
    )  # fmt: skip
    parser.add_argument(
        "--cpu-budget", type=positive_seconds, default=None, metavar="SECONDS",
        help="each team's CPU budget per match (a time bank): past it the team forfeits, "
        "reason time_limit (default: none)",
    )  # fmt: skip


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


def dungeon_rules(items: list[str]) -> Any:
    """The dungeon's ``RulesConfig`` from ``--config`` items; UsageError names the key."""
    from dungeon.config import DEFAULT_RULES, parse_overrides

    try:
        return DEFAULT_RULES.replace(**parse_overrides(items))
    except ValueError as error:
        raise UsageError(f"--config {error}") from None


def parse_config(items: list[str]) -> dict[str, Any]:
    """``--config`` items with each value typed by :func:`parse_value`."""
    return {key: parse_value(value) for key, value in config_pairs(items).items()}
