"""The one logging setup of the project: call :func:`configure_logging` once, in an entry point.

Modules only ever call ``structlog.get_logger()`` and log snake_case events with key/values.
Human-readable lines on a terminal, JSON Lines otherwise (so a server's stderr can be collected
and searched). Match logs are a separate, per-match file format (see ``docs/log-format.md``).
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog

__all__ = ["configure_logging"]


def configure_logging(
    *, level: str = "info", stream: TextIO | None = None, json: bool | None = None
) -> None:
    """Send structlog events at ``level`` or above to ``stream`` (stderr by default)."""
    out = sys.stderr if stream is None else stream
    as_json = not out.isatty() if json is None else json
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
