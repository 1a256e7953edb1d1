"""Does a headless schedule predict network play? ``reference`` vs ``rusher``, three ways.

``python -m bench timed``. The same paired seeds (``match_seeds(SEED, n)``, each played in
both seatings) are played headless under the step schedule, headless under the timed
schedule (``sim.timed``, its default distributions), and over real sockets on loopback with
the ``arena match`` machinery (a trio server and two team clients in one process; matches
two at a time). The table shows each win rate of ``reference`` with its 95% Wilson interval,
and whether each headless interval overlaps the network one. ``BENCH_TIMED_GAMES`` games
(default 200) per row; the network row takes a few minutes.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.common import env_number, print_table
from replay import stats
from sim.backends import LocalBackend
from sim.runner import RunSpec, run
from sim.schedule import match_seeds

GAMES = env_number("BENCH_TIMED_GAMES", 200, minimum=2)
SEED = 21
PAIR = ("reference", "rusher")


def _network_match(seed: int, seats: tuple[str, str]) -> tuple[float, float]:
    """One match over loopback sockets; its returns (+1 won, -1 lost, 0 a draw)."""
    from functools import partial

    import trio

    from arena.logs import configure_logging
    from arena.match import play_match

    configure_logging(level="error")
    report = trio.run(partial(play_match, seats, seed=seed, log_dir=None))
    winner = report.results[0].winner
    if winner is None:
        return (0.0, 0.0)
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def network_games(
    seeds: list[int], pair: tuple[str, str] = PAIR, workers: int = 2
) -> list[stats.GameRecord]:
    """Each seed played in both seatings over loopback sockets, ``workers`` matches at once."""
    jobs = [
        (group, seed, seats) for group, seed in enumerate(seeds) for seats in (pair, pair[::-1])
    ]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_network_match, seed, seats) for _, seed, seats in jobs]
        returns = [future.result() for future in futures]
    return [
        stats.GameRecord(group=group, seats=seats, returns=played, length=0)
        for (group, _, seats), played in zip(jobs, returns, strict=True)
    ]


def headless(options: dict[str, Any]) -> dict[str, Any]:
    spec = RunSpec("dungeon", PAIR, matches=GAMES, seed=SEED, options=options)
    pairing: dict[str, Any] = run(spec, LocalBackend(2)).report["pairings"][0]
    return pairing


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def main() -> None:
    seeds = match_seeds(SEED, (GAMES + 1) // 2)
    network = stats.pairing_summary(*PAIR, network_games(seeds))
    rows = []
    for name, pairing in (
        ("headless, --schedule steps", headless({"optimum": False})),
        ("headless, --schedule timed", headless({"optimum": False, "schedule": "timed"})),
        ("network, loopback sockets", network),
    ):
        low, high = pairing["ci95"]
        overlaps = (
            "-"
            if pairing is network
            else ("yes" if _overlap(pairing["ci95"], network["ci95"]) else "NO")
        )
        rows.append(
            (
                name,
                pairing["games"],
                f"{pairing['wins']}/{pairing['draws']}/{pairing['losses']}",
                f"{pairing['win_rate']:.3f}",
                f"[{low:.3f}, {high:.3f}]",
                overlaps,
            )
        )
    print_table(
        f"reference vs rusher, the same {len(seeds)} paired seeds (seed {SEED}): win rate of "
        "reference with its 95% interval",
        ["schedule", "games", "W/D/L", "win rate", "95% interval", "overlaps network"],
        rows,
        width=110,
    )


if __name__ == "__main__":
    main()
