"""A program stopped by a sandbox limit that sends no signal (memory, processes) is judged
sandbox_limit from its own last words, the same in every game; any other failure stays
crashed (a real dungeon program past its memory limit: tests/test_tournament_run.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from floes.limits import limit_in_output
from penguins.referee import Fault, failure, failure_kind
from server.competition.reasons import failed_kind, with_limit

PYTHON_FORK = """Traceback (most recent call last):
  File "client.py", line 3, in <module>
    os.fork()
BlockingIOError: [Errno 11] Resource temporarily unavailable
"""


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Traceback (most recent call last):\n  ...\nMemoryError\n", ("memory", "MemoryError")),
        ("malloc: Cannot allocate memory\n", ("memory", "Cannot allocate memory")),
        ("terminate called after throwing an instance of 'std::bad_alloc'\n",
         ("memory", "std::bad_alloc")),
        ("java.lang.OutOfMemoryError: Java heap space\n", ("memory", "OutOfMemoryError")),
        ("RuntimeError: can't start new thread\n", ("processes", "can't start new thread")),
        ("sh: fork: Resource temporarily unavailable\n",
         ("processes", "fork: Resource temporarily unavailable")),
        (PYTHON_FORK, ("processes", "os.fork(): [Errno 11]")),
        # EAGAIN from a socket is not a process limit; a crash is a crash.
        ("BlockingIOError: [Errno 11] Resource temporarily unavailable\n", None),
        ("Traceback (most recent call last):\nZeroDivisionError: division by zero\n", None),
        ("", None),
        # Only the end of the output counts: words far back are not how it ended.
        ("MemoryError\n" + "x" * 5000, None),
    ],
)  # fmt: skip
def test_the_limit_a_failed_programs_output_names(
    output: str, expected: tuple[str, str] | None
) -> None:
    assert limit_in_output(output) == expected


def test_an_exit_text_names_the_limit_and_the_reason_follows() -> None:
    text = with_limit("exit code 1", "Traceback ...\nMemoryError\n")
    assert text == "exit code 1, past its memory limit (its output says MemoryError)"
    assert failed_kind(text) == "sandbox_limit"
    assert with_limit("exit code 1", "ValueError: no\n") == "exit code 1"
    assert failed_kind(with_limit("exit code 1", "ValueError: no\n")) == "crashed"


@dataclass
class Ended:
    code: int | None = 1
    signal: str | None = None
    timed_out: bool = False
    stderr: str = ""
    seconds: float = 0.1


def test_a_penguins_player_out_of_memory_is_a_sandbox_limit() -> None:
    ended = Ended(stderr="Traceback (most recent call last):\nMemoryError\n")
    assert failure_kind(ended) is Fault.LIMIT
    assert failure(ended, 2.0) == "sandbox limit: memory (exit code 1, its output says MemoryError)"
    assert failure_kind(Ended(stderr="IndexError: list index out of range\n")) is Fault.CRASHED
    assert failure_kind(Ended(signal="SIGXCPU")) is Fault.LIMIT
