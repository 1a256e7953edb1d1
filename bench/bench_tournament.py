"""Class tournaments: a round robin of external programs, the sandbox's start-up cost, and what
the live page costs the server.

1. A round robin of BENCH_TOURNAMENT_TEAMS (8) teams, each a real external process (``arena
   team`` with the built-in strategies in turn, behind the sandbox: bwrap where it runs, else
   none, said in the title), BENCH_TOURNAMENT_GAMES (2; the issue's figure is 4, a five-minute
   run on 2 cores) games per pair, concurrency
   BENCH_TOURNAMENT_CONCURRENCY (2), on BENCH_TOURNAMENT_NODES (300)-node dungeons: wall time,
   matches per minute, the median match (program start to verdict).
2. Start-up of one program, bare (a plain child process) against sandboxed (bubblewrap with the
   tournament's limits), side by side: ``true`` and ``python3 -c pass``, the median of
   BENCH_TOURNAMENT_STARTS (10) runs each.
3. The live page: BENCH_TOURNAMENT_LIVE (10) full-size matches at once (built-in teams in this
   process), without the page, then with it and one headless Chromium watching a match live:
   this process's CPU seconds (server, teams and page) in each, and the CPU of the processes
   the page adds (its log-reading worker, Chromium), median of BENCH_TOURNAMENT_REPEATS (2).

4. Every game (``games``): a round robin of BENCH_TOURNAMENT_GAME_TEAMS (4) built-in teams
   of each game (dungeon, Penguins, Labyrinth, Fish; 2 seats, 2 games per pair, pre-flight
   off; Penguins, Labyrinth and Fish built-ins run as sandboxed programs, the dungeon's in
   this process) at concurrency 1 and 2: matches per minute, the median match, and at
   concurrency 1 the competition's overhead as a fraction of a match: the wall time outside
   the matches (planning, journal, standings, the run's server) per match, plus the sandbox's
   start-up (sandboxed minus bare ``python3 -c pass``, median of BENCH_TOURNAMENT_STARTS) for
   each program a match starts (none for the dungeon's built-ins, played in this process),
   over the median match.

BENCH_TOURNAMENT_PARTS (round-robin,startup,live,games) picks the parts to run.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path

from bench.common import print_table

TEAMS = int(os.environ.get("BENCH_TOURNAMENT_TEAMS", "8"))
GAMES = int(os.environ.get("BENCH_TOURNAMENT_GAMES", "2"))
CONCURRENCY = int(os.environ.get("BENCH_TOURNAMENT_CONCURRENCY", "2"))
NODES = int(os.environ.get("BENCH_TOURNAMENT_NODES", "300"))
STARTS = int(os.environ.get("BENCH_TOURNAMENT_STARTS", "10"))
LIVE = int(os.environ.get("BENCH_TOURNAMENT_LIVE", "10"))
REPEATS = int(os.environ.get("BENCH_TOURNAMENT_REPEATS", "2"))
STRATEGIES = ("reference", "rusher", "random")
#: Which parts to run (round-robin, startup, live): all by default.
PARTS = os.environ.get("BENCH_TOURNAMENT_PARTS", "round-robin,startup,live,games").split(",")
GAME_TEAMS = int(os.environ.get("BENCH_TOURNAMENT_GAME_TEAMS", "4"))
#: Each game's built-in teams (in turn) and settings for the ``games`` part.
GAME_SETUPS: dict[str, tuple[tuple[str, ...], dict[str, object]]] = {
    "dungeon": (("reference", "rusher"), {"config": {"nodes": 300, "radius": 0.1}}),
    "penguins": (("greedy", "alphabeta"), {"rows": 8, "cols": 8}),
    "labyrinth": (("rotator", "astar"), {"call_seconds": 5}),
    "fish": (("greedy", "minimax1"), {"players_per_game": 2}),
}


def _sandbox_mode() -> str:
    from server.sandbox import check_available

    return "bwrap" if check_available() is None else "none"


def round_robin(mode: str) -> list[object]:
    import trio

    from arena.tournament.players import PLAYERS
    from server.competition.dungeon import RunOptions, TournamentRun
    from server.competition.teams import parse_teams

    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory)
        teams = []
        for number in range(TEAMS):
            (base / f"t{number}").mkdir()
            command = [
                sys.executable, "-m", "arena", "team", "--host", "{host}", "--port", "{port}",
                "--team", "{team}", "--match", "{match}", "--token", "{token}",
                "--strategy", STRATEGIES[number % len(STRATEGIES)],
            ]  # fmt: skip
            teams.append({"name": f"t{number}", "dir": f"t{number}", "command": command})
        settings = {"name": "bench", "games_per_pair": GAMES, "seed": 1, "match_seconds": 60,
                    "config": {"nodes": NODES, "radius": 0.1 if NODES < 600 else 0.06}}  # fmt: skip
        tournament = parse_teams(
            {"tournament": settings, "team": teams}, base=base, players=PLAYERS
        )
        run = TournamentRun(
            tournament,
            RunOptions(out=base / "out", concurrency=CONCURRENCY, sandbox=mode, players=PLAYERS),
        )
        began = time.perf_counter()
        trio.run(run.run)
        wall = time.perf_counter() - began
        records = list(run.records.values())
    reasons = Counter(f["reason"] for r in records for f in r["failures"])
    failures = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items())) or "0"
    median = statistics.median(r["seconds"] for r in records)
    longest = max(r["seconds"] for r in records)
    return [len(records), f"{wall:.1f}", f"{len(records) / wall * 60:.1f}", f"{median:.2f}",
            f"{longest:.1f}", failures]  # fmt: skip


def _median_start(argv: list[str], mode: str | None) -> float:
    from server.sandbox import Limits, prepare_folder, program_paths, sandbox_argv

    samples = []
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        prepare_folder(folder)
        command = argv
        if mode is not None:
            command = sandbox_argv(
                argv, folder=folder, limits=Limits(), network=True, mode=mode,
                read_only=program_paths(argv),
            )  # fmt: skip
        # The sandbox's environment for both: a bare run must not pay for this venv's PATH.
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(folder), "LANG": "C.UTF-8"}
        for _ in range(STARTS + 1):
            began = time.perf_counter()
            subprocess.run(command, check=True, cwd=folder, stdout=subprocess.DEVNULL, env=env)
            samples.append(time.perf_counter() - began)
    return statistics.median(samples[1:]) * 1000


def startup(mode: str) -> list[list[object]]:
    rows: list[list[object]] = []
    team = [sys.executable, "-c", "import client.team, client.strategies.base"]
    for argv in (["true"], ["python3", "-c", "pass"], team):
        bare = _median_start(argv, None)
        boxed = _median_start(argv, mode)
        label = "a team program's imports" if argv is team else " ".join(argv)
        rows.append([label, f"{bare:.1f}", f"{boxed:.1f}", f"{boxed - bare:.1f}",
                     f"{boxed / bare:.1f}x"])  # fmt: skip
    return rows


async def _live_round(watch: bool) -> tuple[float, float, float]:
    """(wall seconds, this process's CPU seconds, its helper processes' CPU seconds) of LIVE
    matches played at once."""
    import trio

    from client.strategies.base import make_strategy
    from client.team import connect_team
    from server.app import Server, serve
    from server.competition.board import Board, server_observer
    from server.competition.web import serve_board

    board = Board("bench")
    log_dir = Path(tempfile.mkdtemp(prefix="bench-live-"))
    server = Server(log_dir=log_dir, observer=server_observer(board), check_workers=1)
    browser: subprocess.Popen[bytes] | None = None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    before = usage.ru_utime + usage.ru_stime
    children_before = helpers_at_end = _children_cpu()
    began = time.perf_counter()
    try:
        async with trio.open_nursery() as nursery:
            stop = trio.Event()
            port = await nursery.start(partial(serve, port=0, server=server, shutdown=stop))
            web = await nursery.start(serve_board, board, "127.0.0.1", 0) if watch else 0
            async with trio.open_nursery() as teams:
                for number in range(LIVE):
                    for seat, name in ((0, "reference"), (1, "rusher")):
                        strategy = make_strategy(name, seat, number * 2 + seat)
                        play = partial(
                            connect_team, "127.0.0.1", port, team=seat, strategy=strategy,
                            match=f"m{number}",
                        )  # fmt: skip
                        teams.start_soon(play)
                if watch:
                    while "m0" not in board.matches:
                        await trio.sleep(0.05)
                    browser = _chromium(f"http://127.0.0.1:{web}/live/m0", log_dir / "profile")
            helpers_at_end = _children_cpu()
            stop.set()
            nursery.cancel_scope.cancel()
    finally:
        wall = time.perf_counter() - began
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime - before
        helpers = helpers_at_end - children_before
        if browser is not None:
            browser.terminate()
            browser.wait()
        shutil.rmtree(log_dir, ignore_errors=True)
    return wall, cpu, helpers


def _children_cpu() -> float:
    """CPU seconds of every live descendant of this process (the page's worker, Chromium)."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _chromium(url: str, profile: Path) -> subprocess.Popen[bytes]:
    binary = shutil.which("chromium") or "chromium"
    return subprocess.Popen(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def live_page() -> list[list[object]]:
    import trio

    rows: list[list[object]] = []
    figures: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
    for _ in range(REPEATS):
        for watch in (False, True):
            figures[watch].append(trio.run(_live_round, watch))
    for watch in (False, True):
        wall = statistics.median(f[0] for f in figures[watch])
        cpu = statistics.median(f[1] for f in figures[watch])
        helpers = statistics.median(f[2] for f in figures[watch])
        rows.append(["page + 1 browser" if watch else "no page", f"{wall:.1f}", f"{cpu:.2f}",
                     f"{helpers:.2f}" if watch else "-"])  # fmt: skip
    base = statistics.median(f[1] for f in figures[False])
    extra = statistics.median(f[1] for f in figures[True]) - base
    rows.append(["added in the server", "", f"{extra:+.2f} ({extra / base * 100:+.0f}%)", ""])
    return rows


def game_round_robin(game: str, mode: str, start_ms: float) -> list[list[object]]:
    """One row per concurrency (1, 2) of a round robin of ``game``'s built-in teams;
    ``start_ms``: what the sandbox adds to a program's start."""
    import trio

    from arena.tournament.players import PLAYERS
    from server.competition.board import Board
    from server.competition.competition import RunOptions
    from server.competition.run import make_run
    from server.competition.teams import parse_teams

    strategies, extra = GAME_SETUPS[game]
    rows: list[list[object]] = []
    for concurrency in (1, 2):
        with tempfile.TemporaryDirectory() as directory:
            base = Path(directory)
            teams = [
                {"name": f"t{number}", "builtin": strategies[number % len(strategies)]}
                for number in range(GAME_TEAMS)
            ]
            settings = {"name": "bench", "game": game, "games_per_pair": 2, "seed": 1, **extra}
            tournament = parse_teams(
                {"tournament": settings, "team": teams}, base=base, players=PLAYERS
            )
            options = RunOptions(
                out=base / "out",
                concurrency=concurrency,
                sandbox=mode,
                preflight="off",
                players=PLAYERS,
            )
            run = make_run(tournament, options, Board("bench"))
            run.open_journal()
            began = time.perf_counter()
            trio.run(run.run)
            wall = time.perf_counter() - began
            records = list(run.records.values())
        inside = sum(r["seconds"] for r in records)
        median = statistics.median(r["seconds"] for r in records)
        outside = (wall - inside) / len(records)
        programs = 0 if game == "dungeon" else 2  # (the dungeon's built-ins: in this process)
        overhead = outside + programs * start_ms / 1000
        share = share_text = ""
        if concurrency == 1:
            share, share_text = f"{outside * 1000:.0f}", f"{overhead / median:.1%}"
        rows.append([game, concurrency, len(records), f"{wall:.1f}",
                     f"{len(records) / wall * 60:.1f}", f"{median:.2f}", share,
                     f"{programs} x {start_ms:.0f}" if concurrency == 1 else "",
                     share_text])  # fmt: skip
    return rows


def main() -> None:
    from arena.logs import configure_logging

    configure_logging(level="warning")
    mode = _sandbox_mode()
    if "round-robin" in PARTS:
        print_table(
            f"Round robin: {TEAMS} external teams, {GAMES} games per pair, concurrency "
            f"{CONCURRENCY}, {NODES} nodes, sandbox {mode}",
            ["matches", "wall s", "matches/min", "median match s", "longest s", "failures"],
            [round_robin(mode)],
            width=110,
        )
    if "startup" in PARTS:
        print_table(
            f"Program start-up, median of {STARTS} (ms): bare vs sandboxed ({mode})",
            ["program", "bare", "sandboxed", "added", "ratio"],
            startup(mode),
            width=100,
        )
    if "games" in PARTS:
        python = ["python3", "-c", "pass"]
        start_ms = _median_start(python, mode) - _median_start(python, None)
        print_table(
            f"Every game: a round robin of {GAME_TEAMS} built-in teams, 2 games per pair, "
            f"sandbox {mode}",
            ["game", "concurrency", "matches", "wall s", "matches/min", "median match s",
             "outside ms/match", "sandbox starts ms", "overhead / match"],
            [row for game in GAME_SETUPS for row in game_round_robin(game, mode, start_ms)],
            width=130,
        )  # fmt: skip
    if "live" in PARTS:
        print_table(
            f"Live page: {LIVE} matches at once (1000 nodes), median of {REPEATS}",
            ["run", "wall s", "server process CPU s", "worker + chromium CPU s"],
            live_page(),
            width=100,
        )


if __name__ == "__main__":
    main()
