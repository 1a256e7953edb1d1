"""What every game's judging shares about a program that ended with a failure
(docs/tournament.md, What each failure means). Pure."""

from __future__ import annotations

from floes.limits import LIMIT_SIGNALS, limit_in_output

__all__ = ["LIMIT_SIGNALS", "failed_kind", "with_limit"]

#: What :func:`with_limit` adds to an exit text: :func:`failed_kind` reads it back.
_LIMIT_NOTE = " limit (its output says "


def with_limit(exit_text: str, output: str) -> str:
    """A failed program's exit text, naming the limit without a signal (memory, processes)
    that its own ``output`` says stopped it: "exit code 1, past its memory limit (its output
    says MemoryError)"; unchanged otherwise."""
    found = limit_in_output(output)
    if found is None:
        return exit_text
    limit, mark = found
    return f"{exit_text}, past its {limit}{_LIMIT_NOTE}{mark})"


def failed_kind(exit_text: str | None) -> str:
    """The reason of a program that ended with a failure, from how it ended (its exit text,
    such as "killed by SIGXCPU" or "exit code 3", see :func:`with_limit`): ``sandbox_limit``
    when a limit's signal ended it or its output names a limit, else ``crashed``."""
    text = exit_text or ""
    limited = _LIMIT_NOTE in text or any(name in text for name in LIMIT_SIGNALS)
    return "sandbox_limit" if limited else "crashed"
