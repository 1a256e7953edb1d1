"""One ladder match, played anywhere: on this machine or on a Dask worker.

A :class:`MatchJob` carries everything the match needs (the game, its settings, the seed and
each seat's program as the bytes of its folder, packed by :func:`pack`), so a worker needs only
this project installed: no database, no shared disk. :func:`play_match` unpacks the programs into
a scratch folder, plays the one game through the game's own adapter (the competition core's:
the same server, sandbox, reasons and records as ``arena tournament``) and returns a
:class:`MatchOutcome`: the adapter's record and the files the match wrote (its log, each
program's captured output, its replay page) as bytes. For the turn-based games (Fish, Penguins,
Labyrinth) the same job gives the same outcome wherever it is played.
"""

from __future__ import annotations

import io
import secrets
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio

from server.competition.match import play_match as play_one
from server.competition.teams import GAMES, Players, Team, TeamsError

__all__ = [
    "DaskPlayer",
    "LocalPlayer",
    "MatchJob",
    "MatchLost",
    "MatchOutcome",
    "Player",
    "Program",
    "pack",
    "play_match",
    "play_match_async",
]

#: The files a match leaves for the ladder (its folders under the match's output folder).
KEPT = ("logs", "programs", "replays")


@dataclass(frozen=True)
class Program:
    """A seat's program: its name in the match (1-32 of ``[A-Za-z0-9_-]``), and either its
    folder (a :func:`pack` archive) and command, or a built-in strategy."""

    name: str
    archive: bytes = b""
    command: tuple[str, ...] = ()
    builtin: str | None = None


@dataclass(frozen=True)
class MatchJob:
    """One match to play: ``number`` names it (``ladder-NNNN``), ``settings`` are the
    ``[tournament]`` options of the game (``match_seconds``, ``call_seconds``, ``memory_mb``,
    ``rows``, ...; docs/tournament.md)."""

    number: int
    game: str
    seed: int
    programs: tuple[Program, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    sandbox: str = "bwrap"
    #: Our built-in players (the command line's; None: programs only).
    players: Players | None = None

    @property
    def name(self) -> str:
        return f"ladder-{self.number}"


@dataclass(frozen=True)
class MatchOutcome:
    """What a played match gives back: the adapter's record (points, scores, failures, reason,
    result, paths relative to the match's folder) and those files' bytes."""

    number: int
    record: dict[str, Any]
    files: dict[str, bytes]

    @property
    def points(self) -> list[float]:
        return [float(p) for p in self.record["points"]]

    @property
    def ranking_scores(self) -> list[float]:
        """Higher is better: the game's scores when it has them (Penguins' fish), else points."""
        return [float(s) for s in self.record.get("scores") or self.record["points"]]


def pack(folder: Path) -> bytes:
    """A program's folder as bytes (a gzip'd tar of its files and folders, modes kept, links
    refused): what a :class:`Program` carries to wherever the match is played."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink():
                raise ValueError(f"{path}: a link; a program's folder holds files and folders")
            info = archive.gettarinfo(str(path), arcname=str(path.relative_to(folder)))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if path.is_file():
                with path.open("rb") as data:
                    archive.addfile(info, data)
            else:
                archive.addfile(info)
    return buffer.getvalue()


def _unpack(archive: bytes, folder: Path) -> None:
    folder.mkdir(parents=True)
    if not archive:
        return
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(folder, filter="data")


async def play_match_async(job: MatchJob) -> MatchOutcome:
    """Play ``job`` in this trio run (see the module's docstring); raises ValueError (one line)
    for a game or settings the adapters refuse."""
    if job.game not in GAMES:
        raise ValueError(f"game: wants one of {', '.join(GAMES)}, got {job.game!r}")
    with tempfile.TemporaryDirectory(prefix="arena-ladder-") as scratch:
        root = Path(scratch)
        teams: list[Team] = []
        for seat, program in enumerate(job.programs):
            if program.builtin is not None:
                teams.append(Team(program.name, builtin=program.builtin))
                continue
            folder = root / "teams" / f"{seat}"
            _unpack(program.archive, folder)
            teams.append(Team(program.name, dir=folder, command=program.command))
        out = root / "out"
        try:
            result = await play_one(
                job.game, teams, seed=job.seed, out=out, settings=job.settings,
                sandbox=job.sandbox, players=job.players, name=job.name,
            )  # fmt: skip
        except TeamsError as error:
            raise ValueError(str(error)) from None
        files = {
            str(path.relative_to(out)): path.read_bytes()
            for kept in KEPT
            for path in sorted((out / kept).rglob("*"))
            if path.is_file()
        }
    return MatchOutcome(job.number, result.record, files)


def play_match(job: MatchJob) -> MatchOutcome:
    """Play ``job`` (blocking; a trio run of its own): what a Dask worker is given."""
    return trio.run(play_match_async, job)


class MatchLost(Exception):
    """A match that was not played to its end through no fault of its programs (a worker or
    the cluster went away): the ladder queues it again."""


class Player(Protocol):
    """Where the ladder's matches are played."""

    async def play(self, job: MatchJob) -> MatchOutcome: ...

    def describe(self) -> str: ...


class LocalPlayer:
    """On this machine, in the ladder's own trio run."""

    async def play(self, job: MatchJob) -> MatchOutcome:
        return await play_match_async(job)

    def describe(self) -> str:
        return "local"


class DaskPlayer:
    """On the workers of a Dask cluster (its scheduler's address, ``tcp://HOST:PORT``). Each
    worker needs this project installed, and bubblewrap unless the sandbox is off. A worker
    lost mid-match: Dask gives the match to another worker (up to its ``allowed-failures``);
    past that, or when the scheduler is gone, :class:`MatchLost`."""

    def __init__(self, address: str, *, timeout: float = 20.0) -> None:
        self.address = address
        self.timeout = timeout
        self._client: Any = None

    def describe(self) -> str:
        return f"dask at {self.address}"

    async def open(self) -> None:
        from distributed import Client

        def connect() -> Any:
            return Client(self.address, timeout=self.timeout, set_as_default=False)  # type: ignore[no-untyped-call]

        try:
            self._client = await trio.to_thread.run_sync(connect)
        except (OSError, TimeoutError) as error:
            raise MatchLost(f"no Dask scheduler at {self.address}: {error}") from None

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await trio.to_thread.run_sync(client.close)

    async def play(self, job: MatchJob) -> MatchOutcome:
        if self._client is None:
            await self.open()
        key = f"ladder-match-{job.number}-{secrets.token_hex(4)}"
        future = self._client.submit(play_match, job, key=key, pure=False)
        try:
            outcome: MatchOutcome = await trio.to_thread.run_sync(
                future.result, abandon_on_cancel=True
            )
        except Exception as error:  # a worker, the network or the scheduler failed
            raise MatchLost(f"{type(error).__name__}: {error}") from error
        finally:
            if not future.done():
                future.cancel()
        return outcome
