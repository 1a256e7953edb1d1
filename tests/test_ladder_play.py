"""One ladder match played anywhere (server/ladder/play.py): from a program's packed folder and
a seed to the adapter's record and the match's files, on this machine or on Dask workers, the
same either way; a worker lost mid-match gives the match to another."""

from __future__ import annotations

import os
import shutil
import signal
import stat
from pathlib import Path
from typing import Any

import pytest
import trio
from tournament_kit import sandbox_mode

from replay.games import parse_game
from server.ladder.play import (
    DaskPlayer,
    LocalPlayer,
    MatchJob,
    MatchLost,
    MatchOutcome,
    Program,
    pack,
    play_match,
)

STARTERS = Path(__file__).resolve().parent.parent / "docs" / "starters"
#: Small, quick Penguins games (a few seconds).
PENGUINS = {"rows": 6, "cols": 6, "call_seconds": 5}


def student(tmp_path: Path, name: str = "floe") -> Program:
    """The Penguins starter, as a student submits it."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(STARTERS / "penguins_player.py", folder / "penguins_player.py")
    return Program(name, pack(folder), ("./penguins_player.py",))


def without_timing(outcome: MatchOutcome) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record and files of a match less what measures time (each call's seconds, each
    line's time)."""
    record = {k: v for k, v in outcome.record.items() if k != "seconds"}
    files: dict[str, Any] = {}
    for name, data in outcome.files.items():
        if name.endswith(".jsonl.gz"):  # a game log: its records, regenerated, less times
            log = parse_game(data, name)
            lines = [log.header, *log.records]
            files[name] = [{k: v for k, v in e.items() if k not in ("t", "seconds")} for e in lines]
        elif not name.endswith(".html"):  # (a replay page: drawn from the log, times and all)
            files[name] = data
    return record, files


def test_a_packed_program_plays_a_match_and_its_files_come_back(tmp_path: Path) -> None:
    """A student's folder, packed, plays sandboxed against one of our players: the record
    names the seats, scores both, and the log, both outputs and the replay page come back."""
    job = MatchJob(
        3, "penguins", 11, (student(tmp_path), Program("house", builtin="greedy")),
        PENGUINS, sandbox=sandbox_mode(),
    )  # fmt: skip
    outcome = play_match(job)
    assert outcome.record["name"] == "ladder-3-0000"
    assert outcome.record["seats"] == ["floe", "house"]
    assert outcome.record["failures"] == []
    assert sum(outcome.points) == 1.0
    assert outcome.ranking_scores == outcome.record["fish"]
    assert set(outcome.files) == {
        "logs/ladder-3-0000/board.txt", "logs/ladder-3-0000/log.jsonl.gz",
        "programs/ladder-3-0000-floe.txt", "programs/ladder-3-0000-house.txt",
        "replays/ladder-3-0000.html",
    }  # fmt: skip
    assert b"floe" in outcome.files["replays/ladder-3-0000.html"]


def test_a_crashing_program_loses_with_its_reason(tmp_path: Path) -> None:
    """A program that exits 3 loses the match as ``crashed``; its output is kept."""
    folder = tmp_path / "crasher"
    folder.mkdir()
    (folder / "player.py").write_text("#!/usr/bin/env python3\nprint('bye')\nraise SystemExit(3)\n")
    (folder / "player.py").chmod(0o755)
    crasher = Program("crasher", pack(folder), ("./player.py",))
    job = MatchJob(4, "penguins", 11, (crasher, Program("house", builtin="greedy")), PENGUINS)
    outcome = play_match(MatchJob(**{**job.__dict__, "sandbox": sandbox_mode()}))
    assert outcome.points == [0.0, 1.0]
    assert [(f["team"], f["reason"]) for f in outcome.record["failures"]] == [
        ("crasher", "crashed")
    ]
    assert b"bye" in outcome.files["programs/ladder-4-0000-crasher.txt"]


def test_pack_keeps_modes_and_refuses_links(tmp_path: Path) -> None:
    """A packed folder plays with its executable bits; a link in it is refused."""
    folder = tmp_path / "p"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "run").write_text("#!/bin/sh\n")
    (folder / "sub" / "run").chmod(0o755)
    assert pack(folder) == pack(folder)  # the same bytes: no times, owners or order inside
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(pack(folder))) as archive:
        member = archive.getmember("sub/run")
    assert member.mode & stat.S_IXUSR
    (folder / "link").symlink_to("/etc/passwd")
    with pytest.raises(ValueError, match="a link"):
        pack(folder)


def test_a_bad_game_or_setting_is_one_line(tmp_path: Path) -> None:
    """A job the adapters cannot play says which field, before any program starts."""
    house = (Program("a", builtin="greedy"), Program("b", builtin="greedy"))
    with pytest.raises(ValueError, match="game: wants one of"):
        play_match(MatchJob(1, "chess", 1, house))
    with pytest.raises(ValueError, match=r"tournament\.rows"):
        play_match(MatchJob(1, "penguins", 1, house, {"rows": 0}))


async def test_dask_workers_play_the_local_match(dask_scheduler: str) -> None:
    """The same job on a Dask worker gives the local record and files (but for timings)."""
    job = MatchJob(
        5, "penguins", 77, (Program("a", builtin="alphabeta"), Program("b", builtin="greedy")),
        PENGUINS, sandbox=sandbox_mode(),
    )  # fmt: skip
    local = await LocalPlayer().play(job)
    dask = DaskPlayer(dask_scheduler)
    try:
        remote = await dask.play(job)
    finally:
        await dask.close()
    assert without_timing(remote) == without_timing(local)
    assert dask.describe() == f"dask at {dask_scheduler}"


async def test_no_scheduler_is_a_lost_match() -> None:
    """A cluster that is not there loses the match (the ladder queues it again)."""
    player = DaskPlayer("tcp://127.0.0.1:9", timeout=0.5)
    with pytest.raises(MatchLost, match="no Dask scheduler"):
        await player.open()


HOLDER = """#!/usr/bin/env python3
import os, sys
if not os.path.exists({mark!r}):
    open({mark!r}, "w").close()
    with open({started!r}, "w") as fifo:  # the test reads it: the match is under way
        fifo.write("playing")
    os.open({never!r}, os.O_RDONLY)  # held until the test lets it go
    sys.exit(0)
os.execv(sys.executable, [sys.executable, "penguins_player.py", *sys.argv[1:]])
"""


async def test_a_worker_killed_mid_match_hands_it_to_another(tmp_path: Path) -> None:
    """Kill -9 of the worker playing a match: the match is played again elsewhere and its
    result comes back once."""
    from distributed import LocalCluster

    mark, started, never = (str(tmp_path / n) for n in ("mark", "started.fifo", "never.fifo"))
    os.mkfifo(started)
    os.mkfifo(never)
    folder = tmp_path / "holder"
    folder.mkdir()
    shutil.copy(STARTERS / "penguins_player.py", folder / "penguins_player.py")
    (folder / "player.py").write_text(HOLDER.format(mark=mark, started=started, never=never))
    (folder / "player.py").chmod(0o755)
    holder = Program("holder", pack(folder), ("./player.py",))
    settings = {**PENGUINS, "call_seconds": 60}
    job = MatchJob(6, "penguins", 5, (holder, Program("house", builtin="greedy")), settings)
    job = MatchJob(**{**job.__dict__, "sandbox": "none"})  # (the FIFOs are outside its folder)
    with LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
        host="127.0.0.1", protocol="tcp",
    ) as cluster:  # fmt: skip
        player = DaskPlayer(cluster.scheduler_address)
        await player.open()
        try:
            async with trio.open_nursery() as nursery:
                outcomes: list[MatchOutcome] = []

                async def play() -> None:
                    outcomes.append(await player.play(job))

                nursery.start_soon(play)
                await trio.to_thread.run_sync(lambda: Path(started).read_text())
                client = player._client
                busy = [w for w, keys in client.processing().items() if keys]
                (pid,) = client.run(os.getpid, workers=busy).values()
                os.kill(pid, signal.SIGKILL)
        finally:
            await player.close()
            descriptor = os.open(never, os.O_WRONLY | os.O_NONBLOCK)  # the orphan may go
            os.close(descriptor)
    (outcome,) = outcomes
    assert outcome.record["seats"] == ["holder", "house"]
    assert outcome.record["failures"] == []
    assert outcome.files["programs/ladder-6-0000-holder.txt"]
