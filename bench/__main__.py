"""Run the benchmarks: ``python -m bench`` for all, ``python -m bench NAME ...`` for some.

Each benchmark is a module ``bench/bench_NAME.py`` with a ``main()`` that prints its table.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main(argv: list[str]) -> int:
    available = sorted(
        info.name.removeprefix("bench_")
        for info in pkgutil.iter_modules(bench.__path__)
        if info.name.startswith("bench_")
    )
    chosen = argv or available
    unknown = [name for name in chosen if name not in available]
    if unknown:
        print(f"unknown benchmarks: {', '.join(unknown)}; have: {', '.join(available)}")
        return 2
    for name in chosen:
        importlib.import_module(f"bench.bench_{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
