"""The product has no import cycle: no module imports, directly or through others, a module that
imports it back. Every import counts, at the top of a file, inside a function or under
``TYPE_CHECKING``: each is an arrow of the design. (import-linter's contracts in pyproject.toml
say who may import whom; this says the arrows never loop.)

A cycle the house still has is listed in :data:`KNOWN` with its owner; the list only shrinks: a
new cycle fails, and so does a listed one that is gone (take it off the list).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp
import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Cycles still to break, each the set of modules of one strongly connected component.
KNOWN: dict[frozenset[str], str] = {}


def cycles_in(packages: list[str]) -> set[frozenset[str]]:
    """Every import cycle among the modules of ``packages``."""
    graph = grimp.build_graph(*packages, cache_dir=None)
    arrows = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            arrows.add_edge(module, imported)
    loops = {frozenset(part) for part in nx.strongly_connected_components(arrows) if len(part) > 1}
    return loops | {frozenset({m}) for m, n in nx.selfloop_edges(arrows)}


def product_cycles() -> set[frozenset[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return cycles_in(config["tool"]["importlinter"]["root_packages"])


def test_no_import_cycle_but_the_listed_ones() -> None:
    """No import cycle in the product beyond those still listed, and each listed one still
    exists (a broken cycle leaves the list)."""
    found = product_cycles()
    new = [sorted(cycle) for cycle in found - KNOWN.keys()]
    gone = [sorted(cycle) for cycle in KNOWN.keys() - found]
    assert not new, f"new import cycles: {new}"
    assert not gone, f"cycles broken, take them off KNOWN: {gone}"


def test_a_cycle_through_a_type_checking_import_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two modules importing each other, one only for its annotations, are a cycle; a third
    they import is not part of it."""
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loopy import b, c\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from loopy import a\n"
    )
    (package / "c.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles_in(["loopy"]) == {frozenset({"loopy.a", "loopy.b"})}
