"""The sandbox's limits as the end of a program shows them, the same for every game
(docs/tournament.md, What each failure means). Pure.

    LIMIT_SIGNALS["SIGXCPU"]                      # "CPU time": a limit that sends a signal
    limit_in_output("...\\nMemoryError\\n")      # ("memory", "MemoryError")

The CPU-time and file-size limits end a program with a signal. The memory (address space) and
process limits send none: the program sees an allocation, a ``fork`` or a new thread fail, and
its own last words say so; those words are what is read here.
"""

from __future__ import annotations

__all__ = ["LIMIT_SIGNALS", "OUTPUT_MARKS", "limit_in_output"]

#: The signals the sandbox's limits send, and the limit each names.
LIMIT_SIGNALS = {"SIGXCPU": "CPU time", "SIGXFSZ": "file size"}

#: Words a program's runtime writes when a limit without a signal stopped it: the limit, then
#: the words (the JVM, Python, C and C++ libraries, a shell), the longer of two that overlap
#: first.
OUTPUT_MARKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("memory", (
        "OutOfMemoryError", "MemoryError", "Cannot allocate memory", "std::bad_alloc",
        "out of memory",
    )),
    ("processes", (
        "can't start new thread", "fork: Resource temporarily unavailable",
        "fork: retry", "Cannot fork", "fork failed", "pthread_create failed",
    )),
)  # fmt: skip

#: How much of the end of a program's output is read for those words.
TAIL_BYTES = 4096


def limit_in_output(output: str) -> tuple[str, str] | None:
    """The limit (``memory`` or ``processes``) and the words that name it in the end of a
    failed program's ``output``, or None."""
    tail = output[-TAIL_BYTES:]
    for limit, marks in OUTPUT_MARKS:
        for mark in marks:
            if mark in tail:
                return limit, mark
    if "os.fork()" in tail and "[Errno 11]" in tail:  # Python's failed fork, its traceback
        return "processes", "os.fork(): [Errno 11]"
    return None
