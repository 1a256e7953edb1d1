"""Compact match logs (``MatchLogWriter(maps="once")``): the map is written once, and every
reader sees the same lines as in a full log, so verify, show and the viewer work unchanged."""

from __future__ import annotations

import io
import json

import pytest

from dungeon.config import RulesConfig
from replay.matchlog import LogWriteError, MatchLogWriter, parse_log
from replay.records import seal
from replay.rerun import verify_log
from sim.dungeon import play_match


def logged_match(maps: str) -> list[str]:
    """A headless match's log, written with a clock that always reads 0 (so ``t`` is equal
    in both kinds of log)."""
    stream = io.StringIO()
    writer = MatchLogWriter(stream, clock=lambda: 0.0, maps=maps)  # type: ignore[arg-type]
    writer.header(seed=7, config=RulesConfig().to_dict(), version="9.9", match=None, source="sim")
    play_match(7, ("reference", "rusher"), RulesConfig(), with_optimum=False, log=writer)
    writer.close(reason="game_over")
    return stream.getvalue().splitlines(keepends=True)


def without_hash(data: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in data.items() if key != "hash"}


def test_a_compact_log_is_half_the_size_and_reads_as_the_full_log() -> None:
    """The map is written once (eleven ``dungeon`` lines name the first), which saves eleven
    maps' bytes (about half of a server's log); read back, every line equals the full log's,
    so every replay tool sees a full log."""
    full, compact = logged_match("each"), logged_match("once")
    assert len(compact) == len(full)
    dungeon_lines = [line for line in compact if '"type":"dungeon"' in line]
    assert len(dungeon_lines) == 12
    assert sum('"nodes"' in line for line in dungeon_lines) == 1
    map_bytes = len(dungeon_lines[0]) - len(dungeon_lines[1])
    assert map_bytes > 50_000
    assert sum(map(len, full)) - sum(map(len, compact)) == pytest.approx(11 * map_bytes, rel=0.01)
    full_log, compact_log = parse_log(full), parse_log(compact)
    assert full_log.complete
    assert compact_log.complete
    assert compact_log.header == {**full_log.header, "maps": "once"}
    assert [line.data for line in compact_log.events[1:]] == [
        line.data for line in full_log.events[1:]
    ]


def test_a_compact_log_verifies() -> None:
    """``arena replay verify`` re-runs the engine and finds every expanded line equal."""
    verdict = verify_log(parse_log(logged_match("once")))
    assert verdict.ok, verdict


def test_a_map_reference_to_a_line_without_a_map_is_a_bad_line() -> None:
    """A compact line must name an earlier line holding the map; one that names another line
    (with a valid hash chain, so only the reference is wrong) is reported at that line."""
    lines = logged_match("once")
    first = next(n for n, line in enumerate(lines) if '"map":' in line)
    previous = json.loads(lines[first - 1])["hash"]
    rebuilt = lines[:first]
    for line in lines[first:]:
        body = json.dumps(without_hash(json.loads(line)), separators=(",", ":"))
        if len(rebuilt) == first:
            data = json.loads(body)
            data["map"] = 1  # the header: no map there
            body = json.dumps(data, separators=(",", ":"))
        text, previous = seal(previous, body)
        rebuilt.append(text + "\n")
    log = parse_log(rebuilt)
    assert log.bad is not None
    assert log.bad.line == first + 1
    assert "names no earlier line holding the map" in log.bad.reason


def test_maps_takes_each_or_once() -> None:
    with pytest.raises(LogWriteError, match="maps must be 'each' or 'once'"):
        MatchLogWriter(io.StringIO(), clock=lambda: 0.0, maps="twice")  # type: ignore[arg-type]
