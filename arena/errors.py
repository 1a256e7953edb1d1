"""The command line's one error type and the one guard every command's ``main`` runs under.

A command raises ``UsageError("--flag value: what is wrong")`` and returns 1 when the work itself
failed (having said why). :func:`command` wraps each command's ``main`` and turns what escapes it
into one line on stderr and the exit status, never a traceback:

* :class:`UsageError`: ``arena COMMAND: message``, status 2;
* Ctrl-C (``KeyboardInterrupt``, also inside trio's exception groups): quiet, status 130;
* the reader of stdout went away (``BrokenPipeError``, ``arena dungeon --json | head``): quiet, 0;
* any other ``OSError`` (a file or stdout that cannot be written): its file and cause, status 1;
* argparse's exits (``--help``, a refused value): returned as the status, for direct callers.

Anything else is a bug and keeps its traceback. Standard library only: the Fish harnesses and
the Penguins player start through here in milliseconds.
"""

from __future__ import annotations

import errno
import functools
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    F = TypeVar("F", bound=Callable[..., int])

__all__ = [
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "UsageError",
    "command",
    "exit_status",
]

#: Exit status of bad usage or bad input, for every command.
EXIT_USAGE = 2
#: Exit status of a command whose work failed (a server unreachable, a file unwritable).
EXIT_FAILURE = 1
#: Exit status after Ctrl-C, as a shell reports a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130


#: errno values of a write that failed for want of room or a device (stdout on a full disk).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT})


class UsageError(Exception):
    """Bad flags or input: reported on stderr with exit status 2."""


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _quiet_stdout() -> None:
    """Point stdout at devnull, so the interpreter's final flush of what is still buffered
    cannot fail a second time (and print "Exception ignored ...")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def exit_status(prog: str, error: BaseException) -> int | None:
    """Report ``error`` (escaped from command ``prog``) in at most one line on stderr and return
    the exit status; None when it is not one of ours to explain (a bug: let it propagate)."""
    leaves = _leaves(error)
    if any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves):
        return EXIT_INTERRUPTED
    # Besides KeyboardInterrupt only trio's Cancelled (a BaseException) may come along.
    failures = [leaf for leaf in leaves if isinstance(leaf, Exception)]
    if len(failures) != 1:
        return None
    failure = failures[0]
    if isinstance(failure, UsageError):
        print(f"{prog}: {failure}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(failure, BrokenPipeError):
        _quiet_stdout()
        return 0
    if isinstance(failure, OSError):
        where = ""
        if failure.filename is not None:
            where = f"{failure.filename}: "
        elif failure.errno in _OUTPUT_ERRNOS:
            where = "cannot write its output: "  # stdout itself: a full disk, /dev/full
            _quiet_stdout()
        print(f"{prog}: {where}{failure.strerror or failure}", file=sys.stderr)
        return EXIT_FAILURE
    return None


def command(prog: str) -> Callable[[F], F]:
    """Decorate a command's ``main``: errors that escape it become one line and an exit status
    (see the module docstring); what it printed is flushed inside the guard."""

    def decorate(main: F) -> F:
        @functools.wraps(main)
        def guarded(*args: object, **kwargs: object) -> int:
            try:
                status: int = main(*args, **kwargs)
                sys.stdout.flush()
            except SystemExit as exit_:  # argparse's --help (0) and its errors (2), as statuses
                if exit_.code is None or isinstance(exit_.code, int):
                    return exit_.code or 0
                raise
            except (KeyboardInterrupt, Exception, BaseExceptionGroup) as error:
                handled = exit_status(prog, error)
                if handled is None:
                    raise
                return handled
            return status

        return guarded  # type: ignore[return-value]

    return decorate
