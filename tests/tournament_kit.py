"""Shared set-up of the tournament tests: teams files with small dungeons and short matches."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from server.sandbox import check_available

#: Rules of a small, always playable dungeon: matches of a fraction of a second.
SMALL = {"nodes": 300, "radius": 0.1}

CRASHING = "import sys\nprint('starting, then failing', sys.argv[1:])\nsys.exit(3)\n"


def sandbox_mode() -> str:
    """bwrap where it runs, else none (the tests of the sandbox itself say why)."""
    return "bwrap" if check_available() is None else "none"


def arena_team(strategy: str) -> list[str]:
    """The built-in client as an external program, told everything by placeholders."""
    return [
        sys.executable, "-m", "arena", "team", "--host", "{host}", "--port", "{port}",
        "--team", "{team}", "--match", "{match}", "--token", "{token}", "--strategy", strategy,
    ]  # fmt: skip


def toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def write_teams(
    folder: Path,
    teams: list[dict[str, Any]],
    programs: dict[str, str] | None = None,
    **settings: Any,
) -> Path:
    """A teams file in ``folder`` (and each program's folder with its ``client.py``)."""
    for name, source in (programs or {}).items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        if source:  # (a client.py beside `python -m arena team` would shadow the client package)
            (folder / name / "client.py").write_text(source)
    table = {"name": "t", "games_per_pair": 2, "seed": 1, "match_seconds": 20,
             "connect_seconds": 15, "config": SMALL, **settings}  # fmt: skip
    # (a setting given as None is left out: the default of a game that has no such option)
    lines = ["[tournament]"] + [f"{k} = {toml_value(v)}" for k, v in table.items() if v is not None]
    for team in teams:
        lines += ["", "[[team]]"] + [f"{k} = {toml_value(v)}" for k, v in team.items()]
    path = folder / "teams.toml"
    path.write_text("\n".join(lines) + "\n")
    return path
