"""The optional compiled core, ``dungeon._fastcore`` (dungeon/_fastcore.c), and its fallback.

The hot loops of a headless match run in C when the extension is built (``pip install -e .``
compiles it; setup.py): an exact branch-and-bound MaxSAT solver for trap problems,
breadth-first hop tables, and the engine's trap draws and counts of active traps (the same
generator calls and the same numbers as their numpy path, so a served match is unchanged).
When it is absent (a build without a C compiler), or switched off with the environment
variable ``DUNGEON_FASTCORE=0`` (read once, at the first :func:`load` of a process; worker
processes inherit it), :func:`load` says so once, on the ``dungeon`` logger, and returns None:
every caller then takes its pure path, which gives results of the same value (the solver may
pick another optimal assignment). The server's own optimum check never comes here: it stays
with pysat.
"""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

__all__ = ["FAST_SWITCHES", "SWITCH", "load"]

#: The environment variable that switches the extension off: ``DUNGEON_FASTCORE=0``.
SWITCH = "DUNGEON_FASTCORE"

#: The C solver takes problems up to this many switches (its search grows as 2^switches in
#: the worst case; beyond, pysat's conflict-budgeted path keeps a match's cost bounded).
FAST_SWITCHES = 32

_state: dict[str, ModuleType | None] = {}


def load() -> ModuleType | None:
    """The extension module, or None (with one notice per process) when it cannot be imported
    or ``DUNGEON_FASTCORE=0`` switches it off."""
    try:
        return _state["module"]
    except KeyError:
        pass
    module: ModuleType | None = None
    if os.environ.get(SWITCH, "").strip() == "0":
        logging.getLogger("dungeon").info(
            "dungeon._fastcore is switched off (%s=0): trap draws, trap solving and hop tables "
            "take the pure Python path, slower, with results of the same value",
            SWITCH,
        )
    else:
        try:
            module = importlib.import_module("dungeon._fastcore")
        except ImportError as exc:
            logging.getLogger("dungeon").warning(
                "dungeon._fastcore is not available (%s): trap draws, trap solving and hop tables "
                "take the pure Python path, slower, with results of the same value",
                exc,
            )
    _state["module"] = module
    return module


def reset() -> None:
    """Forget the outcome of :func:`load` (tests that hide the extension)."""
    _state.clear()
