"""What every game's judging shares about a program that ended with a failure
(docs/tournament.md, What each failure means). Pure."""

from __future__ import annotations

__all__ = ["LIMIT_SIGNALS", "failed_kind"]

#: The signals the sandbox's limits send, and the limit each names: past its CPU seconds
#: (SIGXCPU), past the file size, its captured output included (SIGXFSZ).
LIMIT_SIGNALS = {"SIGXCPU": "CPU time", "SIGXFSZ": "file size"}


def failed_kind(exit_text: str | None) -> str:
    """The reason of a program that ended with a failure, from how it ended (its exit text,
    such as "killed by SIGXCPU" or "exit code 3"): ``sandbox_limit`` when a limit's signal
    ended it, else ``crashed``."""
    text = exit_text or ""
    return "sandbox_limit" if any(name in text for name in LIMIT_SIGNALS) else "crashed"
