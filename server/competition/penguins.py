"""The Penguins adapter of ``arena tournament`` (``game = "penguins"``): one game of 2-4 player
programs through the sandboxed game master (:mod:`server.penguins.master`), and the run that plays a
whole tournament of them.

A game's board is generated from the game's seed (``rows``, ``cols``; ``penguins`` each, 0: by
board size), so the games of one group on one seed are played on the same board, seats rotated
(:func:`server.competition.pairings.group_games`). Each program's private folder starts as a copy
of its team's folder and lasts the whole game (spec penguins.md); a built-in team is our own
``penguins-player`` with that strategy. The master's log is ``logs/MATCH/log.jsonl.gz``; each
program's output (every call's command, how it ended, its stdout and stderr) is
``programs/MATCH-TEAM.txt``, capped at :data:`OUTPUT_CAP` bytes.

Points: 1 for the program with the most fish among those not disqualified, split on a shared
first place, 0 for the rest; ``scores`` (the ranking openskill and the head-to-head use) is the
fish, -1 for a disqualified program. A disqualification is a failure whose reason is the
master's kind of it (docs/tournament.md).
"""

from __future__ import annotations

import html
import random
import shlex
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from penguins.rules import generate_fish, penguins_each
from protocol.penguins import BoardFile, parse
from server import sandbox
from server.competition.competition import Competition, fish_result
from server.competition.pairings import Game
from server.competition.programs import command_paths
from server.competition.teams import Team, Tournament
from server.penguins.master import LOG_NAME, host, limits_for
from server.sandbox import Outcome

__all__ = ["OUTPUT_CAP", "PenguinsRun", "play_game"]

#: Most bytes of one program's output kept per game (the rest is counted, not kept).
OUTPUT_CAP = 64 * 1024


def player_program() -> str:
    """Our own player program (``penguins-player``), beside this interpreter."""
    return str(Path(sys.executable).parent / "penguins-player")


class _Outputs:
    """Each seat's captured output of one game, capped."""

    def __init__(self, seats: int) -> None:
        self.kept = [bytearray() for _ in range(seats)]
        self.dropped = [0] * seats
        self.lock = threading.Lock()

    def add(self, seat: int, argv: Sequence[str], outcome: Outcome, timeout: float) -> None:
        text = f"$ {shlex.join(argv)}\n-> {outcome.describe(timeout)}\n"
        if outcome.stdout:
            text += f"[stdout]\n{outcome.stdout.rstrip()}\n"
        if outcome.stderr:
            text += f"[stderr]\n{outcome.stderr.rstrip()}\n"
        data = text.encode("utf-8", "replace")
        with self.lock:
            room = OUTPUT_CAP - len(self.kept[seat])
            self.kept[seat] += data[: max(room, 0)]
            self.dropped[seat] += max(len(data) - room, 0)

    def write(self, seat: int, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tail = b""
        if self.dropped[seat]:
            tail = f"\n[... {self.dropped[seat]} more bytes not kept]\n".encode()
        path.write_bytes(bytes(self.kept[seat]) + tail)


def play_game(
    tournament: Tournament,
    teams: dict[str, Team],
    game: Game,
    out: Path,
    mode: str,
) -> dict[str, Any]:
    """Play one game (blocking) and return its journal record."""
    began = time.monotonic()
    name = game.name(tournament.name)
    options = tournament.options
    rows, cols, count = options["rows"], options["cols"], len(game.seats)
    each = options["penguins"] or penguins_each(count, rows, cols)
    fish = generate_fish(random.Random(game.seed), rows, cols, each * count)
    board = parse(BoardFile(rows, cols, fish, [0] * len(fish), []).render())
    commands: list[list[str]] = []
    folders: list[Path | None] = []
    for team_name in game.seats:
        team = teams[team_name]
        if team.external:
            commands.append(list(team.command))
            folders.append(team.dir)
        else:
            commands.append([player_program(), f"strategy={team.builtin}", f"id={team_name}"])
            folders.append(None)
    timeout = float(options["call_seconds"])
    limits = replace(limits_for(timeout), memory_bytes=tournament.memory_mb << 20)
    outputs = _Outputs(count)

    def runner(argv: Sequence[str], folder: Path, seconds: float) -> Outcome:
        seat = int(folder.name.removeprefix("player")) - 1
        outcome = sandbox.run(
            argv, folder=folder, limits=limits, network=False, timeout=seconds, mode=mode,
            read_only=command_paths(tuple(argv)),
        )  # fmt: skip
        outputs.add(seat, argv, outcome, seconds)
        return outcome

    workdir = out / "logs" / name
    programs, _, table = host(commands, board, each, workdir, runner, timeout, folders=folders)
    output_paths = []
    for seat, team_name in enumerate(game.seats):
        path = out / "programs" / f"{name}-{team_name}.txt"
        outputs.write(seat, path)
        output_paths.append(str(path.relative_to(out)))
    got = {id(program): fish for _, program, fish in table}
    catch = [got[id(program)] for program in programs]
    alive = [seat for seat, program in enumerate(programs) if program.disqualified is None]
    best = max((catch[seat] for seat in alive), default=None)
    winners = [seat for seat in alive if catch[seat] == best]
    points = [1.0 / len(winners) if seat in winners else 0.0 for seat in range(count)]
    failures = [
        {
            "team": game.seats[seat], "seat": seat, "reason": program.kind or "crashed",
            "detail": program.disqualified, "output": output_paths[seat],
        }
        for seat, program in enumerate(programs)
        if program.disqualified is not None
    ]  # fmt: skip
    result = fish_result(game.seats, winners, best, failures)
    replay = out / "replays" / f"{name}.html"
    write_replay(workdir / LOG_NAME, replay, name, list(game.seats), programs_names(programs))
    return {
        **game.record_head(name),
        "seats": list(game.seats),
        "points": points,
        "scores": [catch[s] if programs[s].disqualified is None else -1 for s in range(count)],
        "fish": catch,
        "winner": winners[0] if len(winners) == 1 else None,
        "reason": failures[0]["reason"] if failures else "fish",
        "result": result,
        "failures": failures,
        "outputs": output_paths,
        "seconds": round(time.monotonic() - began, 3),
        "log": str((workdir / LOG_NAME).relative_to(out)),
        "replay": str(replay.relative_to(out)),
    }


def programs_names(programs: Sequence[Any]) -> list[str]:
    return [program.name for program in programs]


def write_replay(log_path: Path, page: Path, match: str, seats: list[str], ids: list[str]) -> None:
    """The viewer's page of one game (replay/page.py): the teams by seat, every move, who was
    disqualified and why, the ranking at the end; a link back to the standings. A log that
    cannot be drawn gets a page saying why."""
    from penguins.replay import render_html

    page.parent.mkdir(parents=True, exist_ok=True)
    try:
        text, _ = render_html(log_path, "../index.html", dict(zip(ids, seats, strict=True)))
    except (OSError, ValueError, KeyError, TypeError) as error:
        text = (
            f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(match)}</title>"
            f"<p><a href='../index.html'>back to the standings</a></p><p>This game's log "
            f"cannot be drawn: {html.escape(str(error))}</p></html>\n"
        )
    page.write_text(text, encoding="utf-8")


class PenguinsRun(Competition):
    """A tournament of Penguins player programs: the competition of :class:`TournamentRun`
    (batches, concurrency limit, journal, standings, live board), each game played by
    :func:`play_game` in a worker thread (the game master is blocking)."""

    async def _play(self, game: Game) -> dict[str, Any]:
        self.board.start(game.name(self.t.name), None)
        return await trio.to_thread.run_sync(
            play_game, self.t, self.teams, game, self.out, self.options.sandbox,
            abandon_on_cancel=True,
        )  # fmt: skip
