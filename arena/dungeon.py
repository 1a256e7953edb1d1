"""``arena dungeon``: generate a dungeon from a seed, then describe it, dump it or draw it.

arena dungeon --seed 7                      # a summary
arena dungeon --seed 7 --json               # one JSON object: nodes, edges, start, ...
arena dungeon --seed 7 --png dungeon.png    # a picture
arena dungeon --seed 7 --config nodes=300 radius=0.1
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from arena.errors import UsageError, command
from arena.options import ArgumentParser, add_config_option, dungeon_rules, png_file, seed

if TYPE_CHECKING:
    from dungeon.config import RulesConfig
    from dungeon.generation import Dungeon

TEAM_COLOURS = ("tab:blue", "tab:red")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="arena dungeon",
        description="Generate the dungeon of a match seed and describe, dump or draw it.",
    )
    parser.add_argument("--seed", type=seed, required=True, help="the match seed (0 to 2**63-1)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: nodes, edges, start, shrine, npcs, attempts",
    )
    parser.add_argument(
        "--png", type=png_file, metavar="FILE.png", help="draw the dungeon into this PNG file"
    )
    add_config_option(parser, "override a rules setting, e.g. nodes=300 radius=0.1 (repeatable)")
    return parser


@command("arena dungeon")
def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)

    import numpy as np

    from dungeon.generation import generate

    config = dungeon_rules(args.config)
    try:
        dungeon = generate(np.random.Generator(np.random.PCG64(args.seed)), config)
    except ValueError as error:
        raise UsageError(f"--config: {error}") from None

    if args.json:
        print(json.dumps(as_json(dungeon), separators=(",", ":")))
    else:
        print(summary(dungeon, args.seed, config))
    if args.png:
        try:
            draw(dungeon, args.png, title=f"seed {args.seed}")
        except OSError as error:
            raise UsageError(f"--png {args.png}: cannot write it: {error.strerror}") from None
        if not args.json:
            print(f"picture: {args.png}")
    return 0


def as_json(dungeon: Dungeon) -> dict[str, object]:
    """The dungeon as plain data, exactly the keys of `arena dungeon --json`."""
    return {
        "nodes": dungeon.positions.tolist(),
        "edges": dungeon.edges.tolist(),
        "start": list(dungeon.start),
        "shrine": list(dungeon.shrine),
        "npcs": sorted(dungeon.npcs),
        "attempts": dungeon.attempts,
    }


def legal_hops(dungeon: Dungeon, team: int) -> int | None:
    """Fewest corridors from a team's start to its shrine, never entering the other team's
    start or shrine (where its agents may not go); None if there is no such way."""
    enemy = 1 - team
    avoid = frozenset({dungeon.start[enemy], dungeon.shrine[enemy]})
    return dungeon.hops(dungeon.start[team], avoid=avoid)[dungeon.shrine[team]]


def summary(dungeon: Dungeon, seed: int, config: RulesConfig) -> str:
    n, m = dungeon.node_count, len(dungeon.edges)
    lines = [
        f"seed        {seed}",
        f"nodes       {n}",
        f"edges       {m}",
        f"mean degree {2 * m / n:.2f}",
        f"attempts    {dungeon.attempts}",
        f"npcs        {len(dungeon.npcs)}",
    ]
    for team in (0, 1):
        start, shrine = dungeon.start[team], dungeon.shrine[team]
        hops = legal_hops(dungeon, team)
        lines.append(
            f"team {team}      start {start} {_where(dungeon, start)}, "
            f"shrine {shrine} {_where(dungeon, shrine)}, "
            f"start to shrine: {'no way' if hops is None else f'{hops} hops'}"
        )
    defaults = type(config)().to_dict()
    changed = [f"{k}={v}" for k, v in config.to_dict().items() if v != defaults[k]]
    if changed:
        lines.append("config      " + " ".join(changed))
    return "\n".join(lines)


def _where(dungeon: Dungeon, node: int) -> str:
    x, y = dungeon.positions[node].tolist()
    return f"({x:.3f}, {y:.3f})"


def draw(dungeon: Dungeon, path: str, *, title: str = "") -> None:
    """A PNG of the dungeon: corridors, starts (team colours), shrines in yellow, NPCs."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 8), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = dungeon.positions
    axes.add_collection(
        LineCollection(list(positions[dungeon.edges]), colors="0.75", linewidths=0.5, zorder=1)
    )
    axes.scatter(positions[:, 0], positions[:, 1], s=2, color="0.4", zorder=2)
    npcs = sorted(dungeon.npcs)
    if npcs:
        axes.scatter(
            positions[npcs, 0],
            positions[npcs, 1],
            s=18,
            marker="x",
            color="tab:green",
            zorder=3,
            label="NPC",
        )
    for team in (0, 1):
        colour = TEAM_COLOURS[team]
        x, y = positions[dungeon.start[team]]
        axes.scatter([x], [y], s=140, marker="s", color=colour, zorder=4, label=f"start {team}")
        x, y = positions[dungeon.shrine[team]]
        axes.scatter(
            [x],
            [y],
            s=220,
            marker="*",
            color="yellow",
            edgecolors=colour,
            linewidths=1.5,
            zorder=4,
            label=f"shrine {team}",
        )
    # A margin around the unit square: markers on its edge are drawn whole, not cut in half.
    axes.set_xlim(-0.04, 1.04)
    axes.set_ylim(-0.04, 1.04)  # y grows upward, as in the spec
    axes.set_aspect("equal")
    axes.set_title(title)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    figure.savefig(path, format="png", bbox_inches="tight")
