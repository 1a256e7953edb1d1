"""How ``arena check-client`` (either game checker) is told to stop: the signals it heeds and the
:class:`Stopped` it raises once the program has been ended."""

from __future__ import annotations

import signal
import sys

__all__ = ["STOP_SIGNALS", "Stopped"]

#: Signals that end the checker and, with it, the program (Ctrl-C is trio's KeyboardInterrupt).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(Exception):
    """The checker was told to stop (SIGTERM, SIGHUP): the program has been ended."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    def report(self) -> int:
        """Say so on stderr; the exit status, 128 + the signal's number."""
        name = signal.Signals(self.signum).name
        print(f"arena check-client: stopped by {name}; the program was ended", file=sys.stderr)
        return 128 + self.signum
