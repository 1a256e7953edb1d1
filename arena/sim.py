"""``arena sim GAME``: play many headless matches between strategies and compare them.

Example: ``arena sim dungeon --strategies reference,rusher --matches 2000 --workers 2 --seed 1
--sprt elo0=0,elo1=20 --out results.json --plot results.png``. Exit status: 0 done, 1 the run
could not finish (a backend failed), 2 bad usage or input, 130 interrupted (finished matches
are in the journal: rerun with ``--resume``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import structlog

from arena.errors import EXIT_FAILURE, EXIT_INTERRUPTED, UsageError, command
from arena.options import (
    ArgumentParser,
    add_config_option,
    parse_config,
    png_file,
    positive_count,
    seed,
)
from replay.digestlog import DEFAULT_BUDGET
from sim.games import GAMES

__all__ = ["main"]

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


def parse_sprt(text: str) -> dict[str, float]:
    values: dict[str, float] = {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05}
    for item in filter(None, text.split(",")):
        key, equals, value = item.partition("=")
        if not equals or key not in SPRT_KEYS:
            raise UsageError(f"--sprt {item!r}: expected KEY=NUMBER with KEY in {SPRT_KEYS}")
        try:
            values[key] = float(value)
        except ValueError:
            raise UsageError(f"--sprt {item!r}: {value!r} is not a number") from None
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="arena sim",
        description="Play headless matches between strategies: paired seeds, seats swapped.",
    )
    parser.add_argument("game", choices=sorted(GAMES), help="the game to simulate")
    parser.add_argument(
        "--strategies",
        required=True,
        help="comma-separated strategies (2+; round robin): built-in names, or your own as "
        "module:Class or path/to/file.py:Class",
    )
    parser.add_argument(
        "--matches",
        type=positive_count,
        default=100,
        help="games per pairing (rounded up to whole seeds)",
    )
    parser.add_argument(
        "--workers",
        type=positive_count,
        default=os.cpu_count() or 1,
        help="local worker processes (default: CPUs); never changes the results",
    )
    parser.add_argument("--seed", type=seed, default=0, help="the run's seed (the seed list)")
    parser.add_argument(
        "--sprt", metavar="elo0=0,elo1=20[,alpha=0.05,beta=0.05]", help="stop once decided"
    )
    parser.add_argument("--out", type=Path, help="results JSON (a journal is kept beside it)")
    parser.add_argument(
        "--plot", type=png_file, metavar="FILE.png", help="write a PNG of win rates and ratings"
    )
    parser.add_argument("--resume", action="store_true", help="continue the run in --out's journal")
    parser.add_argument(
        "--backend",
        choices=("local", "dask"),
        default="local",
        help="local process pool (default) or a Dask cluster (--scheduler)",
    )
    parser.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    parser.add_argument("--logs", type=Path, help="write one match log per match into this dir")
    parser.add_argument(
        "--compact-logs",
        action="store_true",
        help="dungeon, with --logs: the same as --log-format compact",
    )
    parser.add_argument(
        "--log-budget",
        type=positive_count,
        default=DEFAULT_BUDGET,
        metavar="BYTES",
        help=f"dungeon digest logs: a log's size budget (default {DEFAULT_BUDGET:,}); past it "
        "a log keeps the match's result only",
    )
    parser.add_argument(
        "--log-format",
        choices=("digest", "compact", "full"),
        default=None,
        help="dungeon, with --logs: digest (default: inputs and digests, gzip, ~1/20 of "
        "compact), compact (JSON Lines, the map once) or full (JSON Lines, every message)",
    )
    add_config_option(parser, "rules options of the game, e.g. nodes=300")
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="seconds before a match counts as failed (local backend); 0 for none",
    )
    parser.add_argument(
        "--schedule",
        choices=("timed", "steps"),
        help="dungeon only: timed (default; real-time play modelled, predicts network play) or "
        "steps (the rules' logical steps); timed takes --config think_ms= delay_ms= jitter=",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no table")
    return parser


@command("arena sim")
def main(argv: list[str]) -> int:
    from arena.logs import configure_logging

    args = build_parser().parse_args(argv)
    configure_logging(level="warning")
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from replay.journal import Journal, JournalError, journal_path
    from sim import report as show
    from sim.backends import Backend, DaskBackend, LocalBackend
    from sim.progress import match_progress
    from sim.report import short_names
    from sim.runner import RunSpec, run

    log = structlog.get_logger()
    strategies = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    if args.resume and args.out is None:
        raise UsageError("--resume needs --out (the journal lives beside it)")
    backend: Backend
    if args.backend == "dask":
        if not args.scheduler:
            raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
        backend = DaskBackend(args.scheduler)
    else:
        if args.scheduler:
            raise UsageError("--scheduler goes with --backend dask")
        backend = LocalBackend(args.workers)
    if args.timeout < 0:
        raise UsageError(f"--timeout must be 0 (none) or more seconds, got {args.timeout:g}")
    _check_output_files(args)
    options = parse_config(args.config)
    if args.game == "dungeon":
        # The timed schedule predicts a tournament (docs/simulator.md): the default. The step
        # schedule leaves the options as they were before schedules existed.
        if (args.schedule or "timed") == "timed":
            options["schedule"] = "timed"
    elif args.schedule is not None:
        raise UsageError(f"--schedule: only the dungeon has schedules, not {args.game}")
    if args.compact_logs or args.log_format is not None:
        if args.logs is None or args.game != "dungeon":
            raise UsageError("--compact-logs and --log-format go with --logs, for the dungeon")
        if args.compact_logs and args.log_format not in (None, "compact"):
            raise UsageError(f"--compact-logs contradicts --log-format {args.log_format}")
    if args.logs is not None and args.game == "dungeon":
        fmt = "compact" if args.compact_logs else (args.log_format or "digest")
        options["maps"] = {"digest": "digest", "compact": "once", "full": "each"}[fmt]
        if fmt == "digest":
            options["log_budget"] = args.log_budget
    spec = RunSpec(
        game=args.game,
        strategies=strategies,
        matches=args.matches,
        seed=args.seed,
        options=options,
        sprt=parse_sprt(args.sprt) if args.sprt is not None else None,
        timeout=args.timeout or None,
        logs=str(args.logs) if args.logs is not None else None,
    )
    try:
        game = _check_game(spec)
        spec = _check_strategies(spec, sorted(game.strategies()))
        if spec.logs is not None and not game.info.writes_match_log:
            raise UsageError(f"--logs: {spec.game} does not write match logs")
        if spec.logs is not None:
            _make_directory(Path(spec.logs), "--logs")
        journal = None
        if args.out is not None:
            path = journal_path(args.out)
            if args.resume and not path.exists():
                # Resuming a run that never started starts it (so one command can be rerun until
                # a run is done), but say so: a mistyped --out must not go unnoticed.
                print(f"arena sim: no journal at {path}: starting a fresh run", file=sys.stderr)
            opener = Journal.resume if args.resume else Journal.create
            try:
                journal = opener(path, spec.journal_header())
            except OSError as exc:
                raise UsageError(f"--out: cannot open the journal {path}: {exc.strerror}") from None
    except (ValueError, TypeError, JournalError) as exc:
        raise UsageError(str(exc)) from None
    try:
        shown = short_names(list(strategies))
        label = f"{spec.game} {','.join(shown[name] for name in strategies)}"
        with match_progress(label, enabled=not args.quiet) as bar:
            outcome = run(spec, backend, journal, on_match=bar)
    except KeyboardInterrupt:
        kept = len(journal.done) if journal is not None else 0
        print(
            f"arena sim: interrupted; {kept} finished matches are in the journal"
            + (": rerun with --resume" if journal is not None else " (none: no --out)"),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        # The environment, not our code (e.g. no Dask scheduler at that address): the message
        # says it all, a traceback would only hide it.
        print(f"arena sim: the run failed: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as exc:
        log.exception("run_failed")
        print(f"arena sim: the run failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    finally:
        if journal is not None:
            journal.close()
    if not args.quiet:
        show.print_report(outcome.report)
        if args.game == "fish":
            from fish.strategies import note

            for name in dict.fromkeys(strategies):
                if (said := note(name)) is not None:
                    print(f"note: {said}")
    if spec.logs is not None:
        _report_logs(Path(spec.logs), args.log_budget)
    try:
        if args.out is not None:
            show.write_json(outcome.report, args.out)
        if args.plot is not None:
            show.write_plot(outcome.report, args.plot)
    except OSError as exc:
        # Checked before the run, so only a change under our feet gets here; the journal
        # still holds every match: `--resume` writes the files again without playing.
        print(f"arena sim: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


def _report_logs(directory: Path, budget: int) -> None:
    """Say how much the match logs take, and (once) how many reached their size budget: a
    digest log stops at its budget, so a file of that size or more is one."""
    sizes = [path.stat().st_size for path in directory.iterdir() if path.is_file()]
    total = sum(sizes)
    print(f"logs: {len(sizes)} files, {total / 1024:,.0f} KiB in {directory}", file=sys.stderr)
    over = sum(1 for size in sizes if size >= budget)
    if over:
        print(
            f"arena sim: warning: {over} match logs reached their size budget of {budget:,} "
            "bytes and record the rest of their match by its result only (--log-budget)",
            file=sys.stderr,
        )


def _make_directory(path: Path, flag: str) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{flag}: cannot make the directory {path}: {exc.strerror}") from None


def _check_output_files(args: argparse.Namespace) -> None:
    """Refuse unwritable --out and --plot paths before the run, not after hours of matches."""
    for flag, path in (("--out", args.out), ("--plot", args.plot)):
        if path is None:
            continue
        if path.is_dir():
            raise UsageError(f"{flag} {path}: is a directory; give a file name")
        _make_directory(path.parent, flag)


def _check_game(spec: Any) -> Any:
    from sim.job import load_game_cached

    _check_option_types(spec.game, spec.options)
    try:
        return load_game_cached(spec.game, spec.options)
    except TypeError as exc:
        raise UsageError(f"--config: {spec.game} does not accept these options: {exc}") from None
    except ValueError as exc:  # the game's own check of a value, naming its key
        raise UsageError(f"--config {exc}") from None


def _check_strategies(spec: Any, known: list[str]) -> Any:
    """``spec`` with its strategies checked: built-in names, or strategies of one's own
    (module:Class, file.py:Class; file paths made absolute for the workers)."""
    import dataclasses

    from sim.plugins import PluginError, resolve_names

    unknown = [name for name in spec.strategies if name not in known and ":" not in name]
    if unknown:
        raise UsageError(
            f"unknown {spec.game} strategies: {', '.join(unknown)}; have: {', '.join(known)}"
            ", or module:Class / path/to/file.py:Class"
        )
    try:
        strategies = resolve_names(spec.strategies, spec.game, known)
    except PluginError as exc:
        raise UsageError(f"--strategies: {exc}") from None
    return dataclasses.replace(spec, strategies=strategies)


def _check_option_types(game: str, options: dict[str, Any]) -> None:
    """Name a --config key the game's factory lacks, or a value of the wrong kind for a numeric
    or true/false option (``rows=abc``, ``rows=2.5``, ``optimum=no``), before the factory fails
    with a bare TypeError or silently takes a string as true."""
    import importlib
    import inspect

    module, _, name = GAMES[game].partition(":")
    try:
        parameters = inspect.signature(getattr(importlib.import_module(module), name)).parameters
    except (TypeError, ValueError):
        return
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    for key, value in options.items():
        parameter = parameters.get(key)
        if parameter is None:
            if takes_any:
                continue  # the factory checks its own **options and names the unknown ones
            known = ", ".join(p for p in parameters if p != "self")
            raise UsageError(f"--config {key}: {game} has no such option; known: {known}")
        default = parameter.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise UsageError(f"--config {key}={value!r}: expected true or false")
            continue
        if not isinstance(default, int | float):
            continue
        wanted = int if isinstance(default, int) else int | float
        if isinstance(value, bool) or not isinstance(value, wanted):
            kind = "an integer" if wanted is int else "a number"
            raise UsageError(f"--config {key}={value!r}: expected {kind}")
