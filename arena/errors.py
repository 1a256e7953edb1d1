"""The command line's one error type: bad usage or unreadable input, reported in one line.

A command raises ``UsageError("--flag value: what is wrong")``; its ``main`` prints
``arena COMMAND: message`` on stderr and exits with status 2. Never a traceback.
"""

from __future__ import annotations

__all__ = ["EXIT_USAGE", "UsageError"]

#: Exit status of bad usage or bad input, for every command.
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad flags or input: reported on stderr with exit status 2."""
