"""The match-log options ``arena serve`` and ``arena match`` share: the format and the key."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Literal

from arena.errors import UsageError
from arena.options import positive_count
from replay.digestlog import DEFAULT_BUDGET
from replay.keyfile import KeyFileError, default_key_path, load_key

__all__ = ["FORMATS", "add_key_option", "add_log_options", "log_key", "log_settings"]

#: ``--log-format`` -> the writer's ``maps`` (replay/digestlog.py, replay/writer.py).
FORMATS: dict[str, Literal["each", "once", "digest"]] = {
    "digest": "digest",
    "compact": "once",
    "full": "each",
}


def add_log_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-format",
        choices=tuple(FORMATS),
        default=None,
        help="digest (default: inputs and digests, gzip, signed), compact (JSON Lines, the map "
        "once) or full (JSON Lines, every message)",
    )
    parser.add_argument(
        "--compact-logs", action="store_true", help="the same as --log-format compact"
    )
    parser.add_argument(
        "--log-budget",
        type=positive_count,
        default=DEFAULT_BUDGET,
        metavar="BYTES",
        help=f"a digest log's size budget (default {DEFAULT_BUDGET:,}): past it the server "
        "warns once, the match plays on and its log keeps only the result",
    )
    add_key_option(parser, "digest logs")


def add_key_option(parser: argparse.ArgumentParser, what: str = "the logs") -> None:
    parser.add_argument(
        "--log-key",
        type=Path,
        default=None,
        help=f"sign {what} with the key in this file, created (mode 0600) if missing "
        "(default: $ARENA_LOG_KEY, else LOG_DIR.key beside the log directory)",
    )


def log_key(args: argparse.Namespace, log_dir: Path) -> bytes:
    """The signing key ``--log-key`` or the environment names, else the one beside
    ``log_dir`` (made on first use)."""
    environ = os.environ.get("ARENA_LOG_KEY")
    path = args.log_key or (Path(environ) if environ else default_key_path(log_dir))
    try:
        return load_key(path, create=True)
    except KeyFileError as error:
        raise UsageError(str(error)) from None


def log_settings(
    args: argparse.Namespace, log_dir: Path
) -> tuple[Literal["each", "once", "digest"], bytes | None]:
    """The writer's format and signing key the options ask for (the key made on first use)."""
    if args.compact_logs and args.log_format not in (None, "compact"):
        raise UsageError(f"--compact-logs contradicts --log-format {args.log_format}")
    maps = FORMATS["compact" if args.compact_logs else (args.log_format or "digest")]
    if maps != "digest":
        return maps, None
    return maps, log_key(args, log_dir)
