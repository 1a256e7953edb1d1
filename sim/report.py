"""Showing a run's report: the terminal tables, the JSON file and the plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = [
    "length_unit",
    "print_report",
    "short_names",
    "sprt_line",
    "verdict",
    "write_json",
    "write_plot",
]


def write_json(report: dict[str, Any], path: Path) -> None:
    """The results file: key order fixed, so equal runs give equal bytes (apart from "timing")."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _elo(value: float | None, score: float) -> str:
    """Elo rounded to a point. None is an infinity (a score of 0 or 1): the JSON cannot hold
    one, and its sign is the side of 1/2 the score lies on (a bound equals the score when the
    variance is 0)."""
    if value is None:
        return "+inf" if score >= 0.5 else "-inf"
    return f"{round(value):+d}"


def short_names(names: list[str]) -> dict[str, str]:
    """Each strategy's name as the tables show it: a strategy of one's own keeps its file (or
    last module) and class, ``docs/examples/dungeon_strategy.py:Cautious`` ->
    ``dungeon_strategy.py:Cautious``; the whole name where two would read the same."""

    def short(name: str) -> str:
        where, colon, cls = name.rpartition(":")
        if not colon:
            return name
        base = where.replace("\\", "/").rsplit("/", 1)[-1]
        return f"{base if base.endswith('.py') else base.rsplit('.', 1)[-1]}:{cls}"

    shown = {name: short(name) for name in names}
    clashes = {s for s in shown.values() if list(shown.values()).count(s) > 1}
    return {name: name if s in clashes else s for name, s in shown.items()}


def length_unit(report: dict[str, Any]) -> str:
    """What a game's length counts: simulated milliseconds (the dungeon's timed schedule),
    logical steps (its step schedule), or moves (the other games' actions, one per turn)."""
    if report["game"] != "dungeon":
        return "moves"
    return "sim ms" if report["options"].get("schedule") == "timed" else "steps"


def _by_seat(pairing: dict[str, Any]) -> str:
    """a's W-D-L in seat 1, seat 2, ... ('-' for a seat it never held)."""
    seats = list(pairing.get("by_seat") or [])
    while seats and not sum(seats[-1]):
        seats.pop()  # seats a never held at the end of the table (its first seat is counted)
    return " / ".join(f"{w}-{d}-{lost}" if w + d + lost else "-" for w, d, lost in seats)


def sprt_line(sprt: dict[str, Any]) -> str:
    """The sequential test's verdict, worded so the LLR's place against its bounds is plain."""
    s = sprt
    head = (
        f"SPRT (elo0={s['elo0']:g}, elo1={s['elo1']:g}, alpha={s['alpha']:g}, beta={s['beta']:g})"
        f", {s['groups']} seed groups: LLR {s['llr']:.2f}"
    )
    if s["decision"] == "H1":
        return f"{head} crossed the upper bound {s['upper']:.2f}: H1 accepted"
    if s["decision"] == "H0":
        return f"{head} crossed the lower bound {s['lower']:.2f}: H0 accepted"
    return f"{head}, between the bounds {s['lower']:.2f} and {s['upper']:.2f}: undecided"


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=120)
    names = short_names(list(dict.fromkeys(report["strategies"])))
    table = Table(title=f"{report['game']}: {report['games']} games, seed {report['seed']}")
    unit = length_unit(report)
    table.caption = "by seat: a's W-D-L in seat 1 / seat 2 / ... (seats swap seed by seed)"

    def cell(name: str) -> str:
        # A long name breaks after its colon: the class gets a line of its own, never cut.
        shown = names.get(name, name)
        return shown if len(shown) <= 20 else shown.replace(":", ":\n", 1)

    widest = {
        side: min(24, max(len(line) for p in report["pairings"] for line in cell(p[side]).split()))
        for side in ("a", "b")
    }
    columns = ["a", "b", "games", "W-D-L", "by seat", "score [95% CI]"]
    columns += ["Elo [95% CI]", f"length\n({unit})"]
    for column in columns:
        if column in "ab":
            table.add_column(column, overflow="fold", min_width=widest[column])
        else:
            table.add_column(column, justify="right", no_wrap=column in ("W-D-L", "by seat"))
    for p in report["pairings"]:
        rate = p["win_rate"]
        table.add_row(
            cell(p["a"]),
            cell(p["b"]),
            str(p["games"]),
            f"{p['wins']}-{p['draws']}-{p['losses']}",
            _by_seat(p),
            f"{p['win_rate']:.3f} [{p['ci95'][0]:.3f}, {p['ci95'][1]:.3f}]",
            f"{_elo(p['elo'], rate)} [{_elo(p['elo_ci95'][0], rate)}, "
            f"{_elo(p['elo_ci95'][1], rate)}]",
            _number(p["length"]),
        )
    console.print(table)
    keys = sorted({key for team in report["teams"] for key in team["stats"]})
    if keys:
        # One row per figure, one column per strategy: stays narrow with many figures.
        figures = Table(title="per-team figures (mean per game)")
        figures.add_column("figure")
        for team in report["teams"]:
            shown = names.get(team["strategy"], team["strategy"])
            figures.add_column(f"{shown} ({team['games']})", justify="right")
        for key in keys:
            figures.add_row(key, *(_number(t["stats"].get(key), 2) for t in report["teams"]))
        console.print(figures)
    think = report.get("timing", {}).get("think_us")
    if think:
        # Measured on this machine (the timed schedule charges its own model of thinking).
        console.print(
            "thinking per request (this machine): "
            + ", ".join(f"{names.get(name, name)} {value:.0f} us" for name, value in think.items())
        )
    if "ratings" in report:
        ranking = Table(title="openskill ratings (Plackett-Luce)")
        for column in ("strategy", "mu", "sigma", "ordinal"):
            ranking.add_column(column, justify="left" if column == "strategy" else "right")
        for row in report["ratings"]:
            ranking.add_row(
                names.get(row["strategy"], row["strategy"]),
                f"{row['mu']:.2f}",
                f"{row['sigma']:.2f}",
                f"{row['ordinal']:.2f}",
            )
        console.print(ranking)
    if "sprt" in report:
        console.print(sprt_line(report["sprt"]))
    for failure in report["failed"][:10]:
        console.print(
            f"[red]failed[/red] seed {failure['seed']} {failure['seats']}: {failure['error']}"
        )
    if len(report["failed"]) > 10:
        console.print(f"... and {len(report['failed']) - 10} more failed matches")


def verdict(pairing: dict[str, Any]) -> str:
    """Which side the 95% interval of the score puts a pairing on."""
    a, b = pairing["a"], pairing["b"]
    low, high = pairing["ci95"]
    if low > 0.5:
        return f"{a} beats {b}"
    if high < 0.5:
        return f"{b} beats {a}"
    return "no clear difference"


def write_plot(report: dict[str, Any], path: Path) -> None:
    """Win rate with its interval per pairing, and rating bars (openskill, or Elo per pairing);
    the verdict of each pairing (and of the SPRT) written on it; as wide as its pairings need."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairings = report["pairings"]
    names = short_names(list(dict.fromkeys(report["strategies"])))
    labels = [f"{names.get(p['a'], p['a'])}\nvs {names.get(p['b'], p['b'])}" for p in pairings]
    # Each panel about 1.6 inches a pairing (2.6 at least): one pairing is not lost in white.
    panel = max(2.6, 1.6 * len(pairings))
    figure, (left, right) = plt.subplots(1, 2, figsize=(2 * panel + 1.4, 4.8))
    rates = [p["win_rate"] for p in pairings]
    below = [p["win_rate"] - p["ci95"][0] for p in pairings]
    above = [p["ci95"][1] - p["win_rate"] for p in pairings]
    left.errorbar(range(len(pairings)), rates, yerr=[below, above], fmt="o", capsize=6)
    left.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    for x, p in enumerate(pairings):
        left.annotate(
            f"{p['wins']}-{p['draws']}-{p['losses']}\n{verdict(p)}",
            (x, p["ci95"][1]),
            xytext=(0, 6),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
    left.set_xlim(-0.6, len(pairings) - 0.4)
    left.set_xticks(range(len(pairings)), labels)
    left.set_ylim(0, 1.15)  # room above 1 for the verdicts
    left.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1])
    left.set_ylabel("score of a (95% Wilson interval)")
    left.set_title("win rate per pairing")
    if "ratings" in report:
        rows = report["ratings"]
        right.bar(
            [r["strategy"] for r in rows],
            [r["mu"] for r in rows],
            yerr=[r["sigma"] for r in rows],
            capsize=6,
        )
        right.set_ylabel("openskill mu (+- sigma)")
        right.set_title("ratings")
    else:
        # Infinite values (clean sweeps) are drawn at +-800 Elo, past any real difference.
        def finite(value: float | None, default: float) -> float:
            return default if value is None else value

        elos = [finite(p["elo"], 800.0 if p["win_rate"] > 0.5 else -800.0) for p in pairings]
        lows = [e - finite(p["elo_ci95"][0], -800.0) for e, p in zip(elos, pairings, strict=True)]
        highs = [finite(p["elo_ci95"][1], 800.0) - e for e, p in zip(elos, pairings, strict=True)]
        right.bar(
            range(len(pairings)),
            elos,
            yerr=[[max(0.0, v) for v in lows], [max(0.0, v) for v in highs]],
            capsize=6,
        )
        right.set_xticks(range(len(pairings)), labels)
        right.axhline(0, color="grey", linewidth=1)
        right.set_ylabel("Elo of a over b (95% interval)")
        right.set_title("Elo difference per pairing")
    title = f"{report['game']}: {report['games']} games, seed {report['seed']}"
    if "sprt" in report:
        s = report["sprt"]
        decided = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(s["decision"], "undecided")
        title += f"\nSPRT elo0={s['elo0']:g} elo1={s['elo1']:g}: {decided} (LLR {s['llr']:.2f})"
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
