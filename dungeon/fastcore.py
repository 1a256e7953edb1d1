"""The optional compiled core, ``dungeon._fastcore`` (dungeon/_fastcore.c), and its fallback.

Two hot loops of a headless match run in C when the extension is built (``pip install -e .``
compiles it; setup.py): an exact branch-and-bound MaxSAT solver for trap problems, and
breadth-first hop tables. When it is absent (a build without a C compiler, or hidden on
purpose) :func:`load` says so once, on the ``dungeon`` logger, and returns None: every caller
then takes its pure path, which gives results of the same value (the solver may pick another
optimal assignment). The server's own optimum check never comes here: it stays with pysat.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

__all__ = ["FAST_SWITCHES", "load"]

#: The C solver takes problems up to this many switches (its search grows as 2^switches in
#: the worst case; beyond, pysat's conflict-budgeted path keeps a match's cost bounded).
FAST_SWITCHES = 32

_state: dict[str, ModuleType | None] = {}


def load() -> ModuleType | None:
    """The extension module, or None (with one notice per process) when it cannot be imported."""
    try:
        return _state["module"]
    except KeyError:
        pass
    try:
        module: ModuleType | None = importlib.import_module("dungeon._fastcore")
    except ImportError as exc:
        module = None
        logging.getLogger("dungeon").warning(
            "dungeon._fastcore is not available (%s): trap solving and hop tables take the "
            "pure Python path, slower, with results of the same value",
            exc,
        )
    _state["module"] = module
    return module


def reset() -> None:
    """Forget the outcome of :func:`load` (tests that hide the extension)."""
    _state.clear()
