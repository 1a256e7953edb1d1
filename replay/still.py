"""``arena replay render --png FILE [--step N]``: one still picture of a match (matplotlib).

The same picture as the HTML viewer at that step: corridors, starts, shrines in yellow, the NPCs
still alive, both heirs' paths so far, and the twelve agents by team (heirs ringed in gold).
"""

from __future__ import annotations

from pathlib import Path

from replay.timeline import AGENTS, Timeline

__all__ = ["render_png"]

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
    figure, axes = plt.subplots(figsize=(9, 9.6), dpi=110)
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
    for slot, node in enumerate(frame.positions):
        team, agent = divmod(slot, AGENTS)
        x, y = nodes[node]
        heir = agent == 0
        axes.scatter(x, y, s=150 if heir else 70, c=TEAM_COLOURS[team],
                     edgecolors=GOLD if heir else "#020617", linewidths=2.2 if heir else 1,
                     zorder=8 if heir else 7)  # fmt: skip
    summary = timeline.summary.lines()[0]
    header = timeline.header
    axes.set_title(
        f"match {header.get('match') or '(unnamed)'} · seed {header.get('seed')} · step {step} "
        f"of {len(timeline.frames) - 1} (log line {frame.line})\n{summary}",
        color="#dbe4f5",
        fontsize=11,
    )
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-0.02, 1.02)
    axes.set_aspect("equal")
    axes.set_xticks([])
    axes.set_yticks([])
    for spine in axes.spines.values():
        spine.set_color("#1e2940")
    figure.tight_layout()
    figure.savefig(path, facecolor=FLOOR)
    plt.close(figure)
