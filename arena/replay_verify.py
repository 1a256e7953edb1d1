"""``arena replay verify`` of a dungeon match log (re-run the engine, compare every message and
event, check the chain and signature, print the summary), and reading a dungeon log for every
``arena replay`` command (a file that is not a readable log is a usage error naming it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import UsageError
from arena.replay_games import read_key
from replay.matchlog import LogFormatError, MatchLog, read_log

if TYPE_CHECKING:
    from replay.story import Timeline

__all__ = ["match_timeline", "read_match_log", "verify_logs"]


def read_match_log(path: str, key: bytes | None = None) -> MatchLog:
    """The dungeon match log at ``path`` (checked with ``key``), or a :class:`UsageError`."""
    try:
        return read_log(path, key=key)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read: {error}") from None
    except LogFormatError as error:
        raise UsageError(str(error)) from None


def match_timeline(log: MatchLog) -> Timeline:
    """The log's timeline, or a :class:`UsageError` naming the log."""
    from replay.timeline import build_timeline

    try:
        return build_timeline(log)
    except ValueError as error:
        raise UsageError(f"{log.path}: {error}") from None


def verify_logs(args: argparse.Namespace) -> int:
    """Verify each log in turn; the status is the worst one (a bad file does not stop the rest)."""
    games_checked, worst = getattr(args, "games_checked", 0), getattr(args, "games_status", 0)
    if len(args.logs) == 1 and not games_checked:
        return _verify_one(args.logs[0], args)
    for path in args.logs:
        try:
            status = _verify_one(path, args)
        except UsageError as error:
            print(f"arena replay verify: {error}", file=sys.stderr)
            status = 2
        worst = max(worst, status)
    total = len(args.logs) + games_checked
    print(f"{total} logs checked: {'all OK' if worst == 0 else 'NOT all OK'}")
    return worst


def _verify_one(path: str, args: argparse.Namespace) -> int:
    from replay.rerun import verify_log

    key = read_key(args.key) if args.key is not None else None
    log = read_match_log(path, key)
    verdict = verify_log(log, check_optimum=args.optimum)
    for warning in verdict.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if verdict.difference is not None:
        difference = verdict.difference
        print(f"FAIL {path} line {difference.line}: the re-run differs from the log")
        if difference.where is not None:
            print(f"  first difference: {difference.where}")
        print(f"  expected: {difference.expected}")
        print(f"  found:    {difference.found}")
        return 1
    if log.bad is not None:
        print(f"FAIL {path} {log.bad}")
        if log.bad.line > 1:
            print(f"  lines 1-{log.bad.line - 1} re-run exactly; nothing from there can be trusted")
            pending = verdict.pending or "an input, optimum or close line (no output pending)"
            print(f"  expected: {pending}")
            print(f"  found:    {_line_text(path, log.bad.line)}")
        else:
            print("  the header itself was changed: nothing in this log can be trusted")
        return 1
    if key is not None and (log.signed_by is None or log.signed_through == 0):
        what = "carries no signature" if log.signed_by is None else "has no signed line yet"
        print(f"FAIL {path}: the log {what}: it cannot be told from a re-hashed copy")
        return 1
    last = log.events[-1].line
    optima = f", {verdict.optima_checked} optima recomputed" if args.optimum else ""
    if log.complete:
        print(
            f"OK {path}: {last} lines, {verdict.inputs} inputs re-run, every message and "
            f"engine event matches{optima}"
        )
    else:
        # Incomplete is a failure only when asked for completeness: the verdict word says which.
        verdict_word = "FAIL" if args.require_complete else "OK"
        cut = "; its last line was cut mid-write" if log.cut_short else ""
        print(
            f"{verdict_word} {path}: INCOMPLETE, verified up to its last line {last} "
            f"({verdict.inputs} inputs re-run{optima}); no close line{cut}"
        )
    print(f"  {_signature_note(log, key)}")
    close = log.close.data if log.close is not None else {}
    budget = close.get("budget")
    if isinstance(budget, dict):
        result = close.get("result") or {}
        print(
            f"  size budget: the log reached its {budget.get('limit')} bytes; the "
            f"{budget.get('dropped')} inputs after it are not recorded; result recorded: "
            f"winner {result.get('winner')} ({result.get('reason')})"
        )
    for line in match_timeline(log).summary.lines():
        print(f"  {line}")
    return 0 if log.complete or not args.require_complete else 1


def _signature_note(log: MatchLog, key: bytes | None) -> str:
    """What the check of the log's origin amounts to."""
    if key is not None:
        last = log.events[-1].line
        tail = "" if log.signed_through == last else f"; lines {log.signed_through + 1}-{last} "
        tail += "are chained but not yet signed (cut before the next signature)" if tail else ""
        return f"signature: genuine, signed with this key through line {log.signed_through}{tail}"
    if log.signed_by is not None:
        return (
            f"signature: not checked ({log.signed_by}; give --key FILE): checked unsigned only, "
            "a re-hashed copy would pass this"
        )
    return "signature: none (an unsigned log): checked unsigned only"


def _line_text(path: str, number: int, limit: int = 400) -> str:
    """Line ``number`` (1-based) of the file as written (decompressed), cut to ``limit``."""
    import zlib

    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        inflate = zlib.decompressobj(31)
        try:
            raw = inflate.decompress(raw)
        except zlib.error:
            return "(the compressed data is corrupt there)"
    for index, text in enumerate(raw.decode("utf-8", "replace").split("\n"), start=1):
        if index == number:
            return text if len(text) <= limit else text[: limit - 3] + "..."
    return "(the file ends)"
