"""Our Penguins player against the course's public C programs, through our sandboxed master.

    python -m bench.penguins_peers                   # 40 games against each program found
    python -m bench.penguins_peers --games 8 --strategy alphabeta --opponent ./their-player

Games are seat-swapped pairs: seed s (1, 2, ...) plays a board of 8-12 x 8-12 (from the seed)
with default penguins, once with each program first. A row per opponent: wins, draws, losses of
ours, the mean margin in fish (ours minus theirs), disqualifications on each side, and our median
seconds per call as the master measured it (sandbox included).

The C programs are built outside the repository by whoever wants them, under one folder named by
``PENGUINS_PEERS`` (or give each program with ``--opponent``); without either the run prints one
line and exits 0, and an opponent whose binary is absent is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

from bench.common import print_table
from penguins.rules import generate_fish, penguins_each
from protocol.penguins import BoardFile, parse
from server.penguins.master import host, sandbox_runner
from server.sandbox import check_available

#: Where each public program's binary lies under PENGUINS_PEERS (name: relative path).
PEERS = {
    "dmitmel/penguins-game": Path("dmitmel/build/penguins"),
    "Damian0563/Hey-that-is-my-fish T6": Path("damian/T6/chillguys"),
}
PLAYER = str(Path(sys.executable).parent / "penguins-player")


def board_of(seed: int, players: int) -> tuple[BoardFile, int]:
    """The seed's board (8-12 rows and columns) and penguins each."""
    rows, cols = 8 + seed % 5, 8 + (seed * 3 + 1) % 5
    each = penguins_each(players, rows, cols)
    fish = generate_fish(random.Random(seed), rows, cols, each * players)
    return parse(BoardFile(rows, cols, fish, [0] * len(fish), []).render()), each


def play_pairs(
    ours: list[str], theirs: list[str], games: int, timeout: float, mode: str
) -> dict[str, float]:
    """``games`` games (seat-swapped pairs) of ``ours`` against ``theirs``; the figures."""
    runner = sandbox_runner(mode)
    wins = draws = losses = our_dq = their_dq = 0
    margins: list[float] = []
    seconds: list[float] = []
    for index in range(games):
        seed, swap = index // 2 + 1, index % 2 == 1
        commands = [theirs, ours] if swap else [ours, theirs]
        board, each = board_of(seed, 2)
        with tempfile.TemporaryDirectory(prefix="penguins-peers-") as directory:
            log: list[dict[str, object]] = []
            programs, final, _ = host(
                commands, board, each, Path(directory), runner, timeout, log.append
            )
        us, them = (programs[1], programs[0]) if swap else (programs[0], programs[1])
        scores = {p.ident: p.score for p in final.players}
        mine, other = scores.get(us.name, 0), scores.get(them.name, 0)
        seconds += [
            float(e["seconds"])  # type: ignore[arg-type]
            for e in log
            if e.get("player") == us.name and "seconds" in e
        ]
        our_dq += us.disqualified is not None
        their_dq += them.disqualified is not None
        # A disqualified side loses whatever the fish say; else the fish decide.
        verdict = (them.disqualified is not None) - (us.disqualified is not None)
        verdict = verdict or (mine > other) - (mine < other)
        wins += verdict > 0
        losses += verdict < 0
        draws += verdict == 0
        margins.append(mine - other)
    return {
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "margin": statistics.mean(margins) if margins else 0.0,
        "our_dq": our_dq,
        "their_dq": their_dq,
        "seconds": statistics.median(seconds) if seconds else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.penguins_peers")
    parser.add_argument("--games", type=int, default=40, help="games per opponent (40)")
    parser.add_argument("--strategy", default="territory", help="our strategy (territory)")
    parser.add_argument("--opponent", action="append", help="a program (default: the peers)")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per call (2)")
    args = parser.parse_args(argv)
    peers_dir = os.environ.get("PENGUINS_PEERS")
    if not args.opponent and not peers_dir:
        print("skipped: no opponents (set PENGUINS_PEERS to their folder or give --opponent)")
        return
    reason = check_available()
    mode = "bwrap" if reason is None else "none"
    if reason is not None:
        print(f"no sandbox here ({reason}): the programs run bare")
    if args.opponent:
        opponents = {path: Path(path) for path in args.opponent}
    else:
        opponents = {label: Path(str(peers_dir)) / path for label, path in PEERS.items()}
    rows: list[list[object]] = []
    ours = [PLAYER, f"strategy={args.strategy}", "id=ours"]
    for label, binary in opponents.items():
        if not binary.is_file():
            print(f"skipped {label}: {binary} is absent (build it outside the repository)")
            continue
        got = play_pairs(ours, [str(binary)], args.games, args.timeout, mode)
        rows.append(
            [
                label,
                f"{got['wins']:.0f}/{got['draws']:.0f}/{got['losses']:.0f}",
                f"{got['margin']:+.1f}",
                f"{got['our_dq']:.0f} / {got['their_dq']:.0f}",
                f"{got['seconds'] * 1000:.0f}",
            ]
        )
    if rows:
        print_table(
            f"Penguins: {args.strategy} against the course's C programs ({args.games} games each)",
            ["opponent", "W/D/L", "mean margin", "disqualified (us / them)", "our ms per call"],
            rows,
        )


if __name__ == "__main__":
    main()
