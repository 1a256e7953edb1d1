"""``arena replay render --png FILE [--step N]``: one still picture of a match (matplotlib).

The same picture as the HTML viewer at that step: corridors, starts, shrines in yellow, the NPCs
still alive, both heirs' paths so far, and the twelve agents by team, numbered (heirs ringed in
gold, marked H), with a legend below the map. The title names the match, seed and step, never
the result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dungeon.engine import TEAM_SIZE
from replay.story import Timeline

__all__ = ["render_png", "still_title"]

TEAM_COLOURS = ("#38bdf8", "#fb923c")
GOLD = "#facc15"
NPC = "#c084fc"
FLOOR = "#0b1020"


def render_png(timeline: Timeline, step: int, path: str | Path) -> None:
    """Draw ``timeline`` as it stands at frame ``step`` into the PNG file ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: a file only
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    frame = timeline.frames[step]
    nodes = timeline.nodes
    xs = [x for x, _ in nodes]
    ys = [y for _, y in nodes]
    figure, axes = plt.subplots(figsize=(9, 10), dpi=110)
    figure.patch.set_facecolor(FLOOR)
    axes.set_facecolor(FLOOR)
    segments = [(nodes[u], nodes[v]) for u, v in timeline.edges]
    axes.add_collection(LineCollection(segments, colors="#2b3957", linewidths=0.5, zorder=1))
    axes.scatter(xs, ys, s=1.5, c="#41517a", zorder=2)
    for team, colour in enumerate(TEAM_COLOURS):
        start = nodes[timeline.start[team]]
        shrine = nodes[timeline.shrine[team]]
        axes.scatter(*start, s=160, marker="s", facecolors="none", edgecolors=colour,
                     linewidths=2, zorder=3)  # fmt: skip
        axes.scatter(*shrine, s=420, marker="o", facecolors="none", edgecolors=colour,
                     linewidths=2, zorder=3)  # fmt: skip
        axes.scatter(*shrine, s=260, marker="*", c=GOLD, zorder=4)
        for trail in timeline.heir_trails(team, step):
            axes.plot([nodes[n][0] for n in trail], [nodes[n][1] for n in trail], color=colour,
                      linewidth=2, alpha=0.6, zorder=5)  # fmt: skip
    alive = sorted(frame.npcs)
    axes.scatter([nodes[n][0] for n in alive], [nodes[n][1] for n in alive], s=28, marker="D",
                 c=NPC, edgecolors="#3b0764", zorder=6, label="NPC")  # fmt: skip
    for slot in range(len(frame.positions)):
        team, agent = divmod(slot, TEAM_SIZE)
        x, y = _spread(nodes, frame.positions, slot)
        heir = agent == 0
        axes.scatter(x, y, s=260 if heir else 190, c=TEAM_COLOURS[team],
                     edgecolors=GOLD if heir else "#020617", linewidths=2.4 if heir else 1,
                     zorder=8 if heir else 7)  # fmt: skip
        axes.annotate("H" if heir else str(agent), (x, y), ha="center", va="center", fontsize=7.5,
                      fontweight="bold", color="#020617", zorder=9)  # fmt: skip
    axes.set_title(still_title(timeline, step), color="#dbe4f5", fontsize=11)
    _legend(figure)
    axes.set_xlim(-0.04, 1.04)
    axes.set_ylim(-0.04, 1.04)
    axes.set_aspect("equal")
    axes.set_xticks([])
    axes.set_yticks([])
    for spine in axes.spines.values():
        spine.set_color("#1e2940")
    figure.tight_layout(rect=(0, 0.07, 1, 1))  # the legend's room below the map
    figure.savefig(path, facecolor=FLOOR)
    plt.close(figure)


def still_title(timeline: Timeline, step: int) -> str:
    """The still's title: match, seed and step. Never the result: a still of step N must not
    tell how the match ends."""
    header = timeline.header
    return (
        f"match {header.get('match') or '(unnamed)'} · seed {header.get('seed')} · step {step} "
        f"of {len(timeline.frames) - 1} (log line {timeline.frames[step].line})"
    )


def _spread(
    nodes: Sequence[tuple[float, float]], positions: Sequence[int], slot: int
) -> tuple[float, float]:
    """Where agent ``slot`` is drawn: agents sharing a node stand in a small ring around it."""
    node = positions[slot]
    sharing = [other for other, at in enumerate(positions) if at == node]
    x, y = nodes[node]
    if len(sharing) == 1:
        return x, y
    radius = 0.012 + 0.002 * len(sharing)
    angle = math.pi / 2 - 2 * math.pi * sharing.index(slot) / len(sharing)
    return x + radius * math.cos(angle), y + radius * math.sin(angle)


def _legend(figure: Any) -> None:
    """What each mark means, below the map (never over it)."""
    from matplotlib.lines import Line2D

    def mark(label: str, **style: Any) -> Line2D:
        return Line2D([], [], linestyle="none", label=label, **style)

    handles = [
        mark("team 0 agent (1-5)", marker="o", markersize=9, markerfacecolor=TEAM_COLOURS[0],
             markeredgecolor="#020617"),
        mark("team 1 agent (1-5)", marker="o", markersize=9, markerfacecolor=TEAM_COLOURS[1],
             markeredgecolor="#020617"),
        mark("heir (H, gold ring)", marker="o", markersize=10, markerfacecolor="#7d8aa5",
             markeredgecolor=GOLD, markeredgewidth=2),
        mark("start (its team's colour)", marker="s", markersize=9, markerfacecolor="none",
             markeredgecolor="#dbe4f5"),
        mark("shrine (ring: its team)", marker="*", markersize=13, markerfacecolor=GOLD,
             markeredgecolor=GOLD),
        mark("NPC", marker="D", markersize=6, markerfacecolor=NPC, markeredgecolor="#3b0764"),
        Line2D([], [], color=TEAM_COLOURS[0], linewidth=2, alpha=0.6, label="heir's path"),
    ]  # fmt: skip
    figure.legend(handles=handles, loc="lower center", ncol=4, frameon=False,
                  labelcolor="#dbe4f5", fontsize=9)  # fmt: skip
