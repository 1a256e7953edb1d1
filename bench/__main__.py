"""Run the benchmarks: ``python -m bench`` for all, ``python -m bench NAME ...`` for some.

Each benchmark is a module ``bench/bench_NAME.py`` with a ``main()`` that prints its table. Some
read settings from ``BENCH_*`` environment variables (see each module). Exit status: 0 done,
2 an unknown benchmark or a bad setting (one line on stderr naming it), 130 after Ctrl-C.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench
from bench.common import SettingError

PROG = "python -m bench"


def available() -> list[str]:
    return sorted(
        info.name.removeprefix("bench_")
        for info in pkgutil.iter_modules(bench.__path__)
        if info.name.startswith("bench_")
    )


def usage() -> str:
    return f"usage: {PROG} [NAME ...]\n\nbenchmarks: {', '.join(available())}"


def main(argv: list[str]) -> int:
    if any(arg in {"-h", "--help", "help"} for arg in argv):
        print(usage())
        return 0
    options = [arg for arg in argv if arg.startswith("-")]
    if options:
        print(f"{PROG}: unknown option {options[0]} (see '{PROG} --help')", file=sys.stderr)
        return 2
    have = available()
    chosen = argv or have
    unknown = [name for name in chosen if name not in have]
    if unknown:
        print(
            f"{PROG}: unknown benchmarks: {', '.join(unknown)}; have: {', '.join(have)}",
            file=sys.stderr,
        )
        return 2
    try:
        for name in chosen:
            importlib.import_module(f"bench.bench_{name}").main()
    except SettingError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
