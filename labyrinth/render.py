"""Pictures of a position: text for terminals (and DISP_GAME), PNG through matplotlib.

Text legend: ``#`` wall, ``.`` free, ``A`` the first player, ``B`` the second, ``X`` both on one
cell, ``T`` the treasure (a player standing on it hides it; the status lines say where it is).
Row and column indices frame the maze because rotations are typed by index.
"""

from __future__ import annotations

from collections.abc import Sequence

from labyrinth.rules import Labyrinth

__all__ = ["render_png", "render_text"]

SYMBOLS = {"wall": "#", "free": ".", "treasure": "T", "both": "X"}
PLAYER_SYMBOLS = ("A", "B")


def render_text(labyrinth: Labyrinth, names: Sequence[str] = ("player 0", "player 1")) -> str:
    """The maze with indices, both players, the treasure, energies and whose turn it is."""
    width, height = labyrinth.width, labyrinth.height
    tens = "".join(str(x // 10) if x >= 10 else " " for x in range(width))
    units = "".join(str(x % 10) for x in range(width))
    lines = [f"    {tens}", f"    {units}"]
    for y in range(height):
        row = []
        for x in range(width):
            cell = (x, y)
            here = [seat for seat in (0, 1) if labyrinth.players[seat] == cell]
            if len(here) == 2:
                row.append(SYMBOLS["both"])
            elif here:
                row.append(PLAYER_SYMBOLS[here[0]])
            elif cell == labyrinth.treasure:
                row.append(SYMBOLS["treasure"])
            else:
                row.append(SYMBOLS["wall" if labyrinth.walls[y * width + x] else "free"])
        lines.append(f" {y:>2} {''.join(row)}")
    for seat in (0, 1):
        x, y = labyrinth.players[seat]
        lines.append(
            f"{PLAYER_SYMBOLS[seat]} {names[seat]}: ({x}, {y}) energy {labyrinth.energies[seat]}"
        )
    tx, ty = labyrinth.treasure
    status = f"T treasure: ({tx}, {ty})  turn {labyrinth.turn}/{labyrinth.config.max_turns}"
    if labyrinth.over:
        status += f"  game over: {labyrinth.end_reason}"
    else:
        status += f"  {names[labyrinth.to_move]} to move"
    lines.append(status)
    return "\n".join(lines)


def render_png(labyrinth: Labyrinth, path: str, title: str = "") -> None:
    """Draw the position into a PNG file (matplotlib's Agg backend, imported here only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width, height = labyrinth.width, labyrinth.height
    grid = [[labyrinth.walls[y * width + x] for x in range(width)] for y in range(height)]
    figure, axes = plt.subplots(figsize=(width * 0.4 + 1, height * 0.4 + 1))
    axes.imshow(grid, cmap="Greys", vmin=0, vmax=1.4)
    axes.set_xticks(range(width))
    axes.set_yticks(range(height))
    axes.tick_params(labelsize=7)
    tx, ty = labyrinth.treasure
    axes.scatter([tx], [ty], marker="*", s=260, color="gold", edgecolors="black", label="treasure")
    for seat, color in ((0, "tab:blue"), (1, "tab:red")):
        x, y = labyrinth.players[seat]
        label = f"{PLAYER_SYMBOLS[seat]} (energy {labyrinth.energies[seat]})"
        axes.scatter([x], [y], marker="o", s=140, color=color, edgecolors="black", label=label)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, fontsize=7)
    axes.set_title(title or f"Labyrinth {width} x {height}")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
