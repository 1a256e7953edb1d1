"""Showing a run's report: the terminal tables, the JSON file and the plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_report", "write_json", "write_plot"]


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


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=120)
    table = Table(title=f"{report['game']}: {report['games']} games, seed {report['seed']}")
    for column in ("a", "b", "games", "W-D-L", "score [95% CI]", "Elo [95% CI]", "length"):
        table.add_column(column, justify="left" if column in "ab" else "right")
    for p in report["pairings"]:
        rate = p["win_rate"]
        table.add_row(
            p["a"],
            p["b"],
            str(p["games"]),
            f"{p['wins']}-{p['draws']}-{p['losses']}",
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
            figures.add_column(f"{team['strategy']} ({team['games']})", justify="right")
        for key in keys:
            figures.add_row(key, *(_number(t["stats"].get(key), 2) for t in report["teams"]))
        console.print(figures)
    think = report.get("timing", {}).get("think_us")
    if think:
        # Measured on this machine (the timed schedule charges its own model of thinking).
        console.print(
            "thinking per request (this machine): "
            + ", ".join(f"{name} {value:.0f} us" for name, value in think.items())
        )
    if "ratings" in report:
        ranking = Table(title="openskill ratings (Plackett-Luce)")
        for column in ("strategy", "mu", "sigma", "ordinal"):
            ranking.add_column(column, justify="left" if column == "strategy" else "right")
        for row in report["ratings"]:
            ranking.add_row(
                row["strategy"], f"{row['mu']:.2f}", f"{row['sigma']:.2f}", f"{row['ordinal']:.2f}"
            )
        console.print(ranking)
    if "sprt" in report:
        s = report["sprt"]
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[s["decision"]]
        console.print(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
            f"LLR {s['llr']:.2f} in [{s['lower']:.2f}, {s['upper']:.2f}] after {s['groups']} "
            f"seed groups: {verdict}"
        )
    for failure in report["failed"][:10]:
        console.print(
            f"[red]failed[/red] seed {failure['seed']} {failure['seats']}: {failure['error']}"
        )
    if len(report["failed"]) > 10:
        console.print(f"... and {len(report['failed']) - 10} more failed matches")


def write_plot(report: dict[str, Any], path: Path) -> None:
    """Win rate with its interval per pairing, and rating bars (openskill, or Elo per pairing)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairings = report["pairings"]
    labels = [f"{p['a']}\nvs {p['b']}" for p in pairings]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    rates = [p["win_rate"] for p in pairings]
    below = [p["win_rate"] - p["ci95"][0] for p in pairings]
    above = [p["ci95"][1] - p["win_rate"] for p in pairings]
    left.errorbar(range(len(pairings)), rates, yerr=[below, above], fmt="o", capsize=6)
    left.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    left.set_xticks(range(len(pairings)), labels)
    left.set_ylim(0, 1)
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
    figure.suptitle(f"{report['game']}: {report['games']} games, seed {report['seed']}")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
