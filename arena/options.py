"""argparse value types that several commands share: a bad value is refused by argparse itself,
with the flag named and exit status 2."""

from __future__ import annotations

import argparse
import math

__all__ = ["positive_seconds"]


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero ("0", "-1", "nan", "inf" refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: the time limit must be positive")
    return value
