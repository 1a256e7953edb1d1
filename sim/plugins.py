"""Strategies of your own: ``module:Class`` or ``path/to/file.py:Class`` wherever a built-in
strategy name is accepted (``arena sim``, ``arena match``, ``arena team``, a tournament's
``builtin``), for every game.

One loader, :func:`load_strategy`: it imports the module (or executes the file, under a module
name made from its absolute path, so a Dask worker or pool worker that gets the same name loads
it again by itself), finds the class and checks it against the game's strategy interface
(:data:`INTERFACES`), raising :class:`PluginError` with one line that names the cause. A file
path is made absolute by :func:`canonical` before a run starts, so workers started elsewhere
find the same file; on a cluster the file must exist at that path on every worker.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "INTERFACES",
    "PluginError",
    "canonical",
    "check_strategy",
    "dungeon_strategy",
    "is_plugin",
    "load_strategy",
    "resolve_names",
]

#: game -> (the methods a strategy class must have, how the game constructs one).
INTERFACES: dict[str, tuple[tuple[str, ...], str]] = {
    "dungeon": (("observe", "choose_move", "solve"), "Class(team, seed)"),
    "fish": (("step",), "Class()"),
    "penguins": (("step",), "Class()"),
    "labyrinth": (("step",), "Class()"),
}

_loaded: dict[tuple[str, str], type] = {}


class PluginError(ValueError):
    """A strategy given as ``module:Class`` or ``file.py:Class`` that cannot be used."""


def is_plugin(name: str) -> bool:
    """Whether ``name`` names a strategy of one's own rather than a built-in one."""
    return ":" in name


def _split(name: str) -> tuple[str, str]:
    where, _, attribute = name.rpartition(":")
    if not where or not attribute.isidentifier():
        raise PluginError(f"strategy {name!r}: expected module:Class or path/to/file.py:Class")
    return where, attribute


def canonical(name: str) -> str:
    """``name`` with a file path made absolute (a module path or a built-in name unchanged)."""
    if not is_plugin(name):
        return name
    where, attribute = _split(name)
    if where.endswith(".py"):
        return f"{Path(where).expanduser().resolve()}:{attribute}"
    return name


def _import(where: str, name: str) -> object:
    if where.endswith(".py"):
        path = Path(where).expanduser().resolve()
        if not path.is_file():
            raise PluginError(f"strategy {name!r}: no such file {path}")
        digest = hashlib.blake2b(str(path).encode(), digest_size=6).hexdigest()
        module_name = f"arena_strategy_{path.stem}_{digest}"
        if module_name in sys.modules:
            return sys.modules[module_name]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"strategy {name!r}: cannot load {path} as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # before running it: dataclasses and pickle look here
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[module_name]
            raise PluginError(
                f"strategy {name!r}: {path} failed to load: {_one_line(exc)}"
            ) from None
        return module
    try:
        return importlib.import_module(where)
    except ImportError as exc:
        raise PluginError(f"strategy {name!r}: cannot import {where}: {_one_line(exc)}") from None
    except Exception as exc:
        raise PluginError(f"strategy {name!r}: {where} failed to load: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text


def load_strategy(name: str, game: str) -> type:
    """The class ``name`` (``module:Class`` or ``file.py:Class``) names, checked against
    ``game``'s strategy interface; loaded once per process."""
    key = (canonical(name), game)
    cached = _loaded.get(key)
    if cached is not None:
        return cached
    if game not in INTERFACES:
        raise PluginError(f"strategy {name!r}: no strategy interface for game {game!r}")
    where, attribute = _split(name)
    module = _import(where, name)
    found = getattr(module, attribute, None)
    if found is None:
        raise PluginError(f"strategy {name!r}: {where} has no attribute {attribute}")
    if not inspect.isclass(found):
        raise PluginError(f"strategy {name!r}: {attribute} is not a class")
    methods, construction = INTERFACES[game]
    missing = [m for m in methods if not callable(getattr(found, m, None))]
    if missing:
        raise PluginError(
            f"strategy {name!r}: {attribute} lacks {', '.join(missing)}; a {game} strategy is "
            f"a class with {', '.join(methods)}, made as {construction}"
        )
    _loaded[key] = found
    return found


def dungeon_strategy(name: str) -> type:
    """The dungeon strategy class ``name`` names: the ``load`` hook of
    ``client.strategies.base.make_strategy``."""
    return load_strategy(name, "dungeon")


def check_strategy(name: str, game: str) -> None:
    """Load ``name`` for ``game`` and make one instance as the game would (team 0, seed 0 for
    the dungeon), so that a run refuses a broken strategy before it starts."""
    cls = load_strategy(name, game)
    try:
        cls(0, 0) if game == "dungeon" else cls()
    except Exception as exc:
        _, construction = INTERFACES[game]
        raise PluginError(f"strategy {name!r}: {construction} failed: {_one_line(exc)}") from None


def resolve_names(names: Iterable[str], game: str, builtin: Iterable[str]) -> tuple[str, ...]:
    """``names`` as a run keeps them: built-in names as they are, strategies of one's own with
    file paths made absolute and checked by :func:`check_strategy`; PluginError (one line)
    for an unknown name or a broken strategy."""
    known = sorted(builtin)
    resolved = []
    for name in names:
        if name in known:
            resolved.append(name)
        elif is_plugin(name):
            check_strategy(name, game)
            resolved.append(canonical(name))
        else:
            raise PluginError(
                f"unknown {game} strategy {name!r}; have: {', '.join(known)}, or "
                "module:Class / path/to/file.py:Class"
            )
    return tuple(resolved)
