"""``arena replay show``: the match as a readable timeline on the terminal (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from replay.matchlog import MatchLog
from replay.story import Note, Timeline

__all__ = ["print_timeline"]

TEAM_STYLES = ("bold deep_sky_blue1", "bold orange_red1")
KIND_STYLES = {
    "crossed": "",
    "trap": "yellow",
    "attacked": "magenta",
    "kill": "bold magenta",
    "npc": "magenta",
    "seen": "dim",
    "error": "red",
    "game_over": "bold green",
}


def _keep(note: Note, team: int | None, agent: int | None) -> bool:
    if team is None and agent is None:
        return True
    return any(
        (team is None or t == team) and (agent is None or a == agent) for t, a in note.agents
    )


def _styled(note: Note) -> Text:
    text = Text(note.text, style=KIND_STYLES.get(note.kind, ""))
    for team, style in enumerate(TEAM_STYLES):
        text.highlight_words([f"T{team} heir", *(f"T{team} a{a}" for a in range(1, 6))], style)
    return text


def print_timeline(
    log: MatchLog,
    timeline: Timeline,
    console: Console,
    *,
    team: int | None = None,
    agent: int | None = None,
    sightings: bool = True,
    requests: bool = False,
) -> None:
    """Print the header, every note that concerns ``team``/``agent``, and the summary."""
    header = timeline.header
    console.print(
        f"[bold]match[/] {header.get('match') or '(unnamed)'}  [bold]seed[/] {header['seed']}  "
        f"[bold]source[/] {header['source']}  [bold]written by[/] dungeon-arena "
        f"{header['version']}  [bold]nodes[/] {len(timeline.nodes)}  "
        f"[bold]starts[/] {timeline.start}  [bold]shrines[/] {timeline.shrine}"
    )
    players = header.get("players")
    if isinstance(players, list) and len(players) == 2:
        console.print(
            f"[bold]team 0[/] {escape(str(players[0]))}  [bold]team 1[/] {escape(str(players[1]))}"
        )
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("line", justify="right", style="dim")
    table.add_column("t (s)", justify="right", style="dim")
    table.add_column("what happened")
    for entry in timeline.entries:
        notes = [
            note
            for note in entry.notes
            if _keep(note, team, agent) and (sightings or note.kind != "seen")
        ]
        actor_kept = entry.actor is not None and _keep(
            Note("", "input", (entry.actor,)), team, agent
        )
        # A disconnect or time-up entry already carries its title as a note.
        actor_kept = actor_kept and not (notes and notes[0].text == entry.title)
        if requests and actor_kept:
            table.add_row(str(entry.line), f"{entry.t:.3f}", Text(entry.title, style="dim"))
        for index, note in enumerate(notes):
            first = index == 0 and not (requests and actor_kept)
            table.add_row(
                str(entry.line) if first else "", f"{entry.t:.3f}" if first else "", _styled(note)
            )
    console.print(table)
    for line in timeline.summary.lines():
        console.print(f"[bold]{line}[/]")
    if log.bad is not None:
        console.print(f"[bold red]the log breaks at {log.bad}[/]; shown up to the line before")
    elif not log.complete:
        cut = " (its last line was cut mid-write)" if log.cut_short else ""
        console.print(f"[bold yellow]incomplete log[/]: no close line{cut}")
