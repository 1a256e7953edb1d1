"""Class tournaments with the courses' public programs as students (issue 25's "done when"):

    python -m bench.tournament_peers                 # every game whose peers are found
    python -m bench.tournament_peers penguins --games-per-pair 4 --concurrency 2

- penguins: the C players dmitmel/penguins-game and Damian0563 T6 under ``PENGUINS_PEERS``
  (``dmitmel/build/penguins``, ``damian/T6/chillguys``) and two copies of our player;
- fish: the OCaml clients of StrongerXi/Fish under ``FISH_PEER``
  (``_build/default/src/test/integration/xclient.exe``, one client a program) and ours;
- labyrinth: C clients on the course's C API (our client/labyrinth_c/client.c compiled with
  CodingGameServer's GameAPI and labyrinthAPI under ``CGS_DIR``) and our own clients, a league
  played to the end.

Each runs ``arena tournament`` (sandboxed: bwrap where it runs) in a scratch folder and prints
the standings (points, W/D/L, failures by reason), every failure, and the wall time. A game
whose variable is unset, or whose programs are absent, prints one line saying so and is
skipped. The peers are built outside the repository; nothing of theirs is copied into it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import print_table

GAMES = ("penguins", "fish", "labyrinth")
C_CLIENT = Path(__file__).resolve().parent.parent / "client" / "labyrinth_c" / "client.c"


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def write_teams(folder: Path, settings: dict[str, Any], teams: list[dict[str, Any]]) -> Path:
    lines = ["[tournament]", *(f"{k} = {_toml(v)}" for k, v in settings.items())]
    for team in teams:
        lines += ["", "[[team]]", *(f"{k} = {_toml(v)}" for k, v in team.items())]
    path = folder / "teams.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _empty(folder: Path, name: str) -> str:
    (folder / name).mkdir(exist_ok=True)
    return name


def penguins_class(folder: Path, games: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    root = os.environ.get("PENGUINS_PEERS")
    if not root:
        return "PENGUINS_PEERS is not set"
    peers = {
        "dmitmel": Path(root) / "dmitmel" / "build" / "penguins",
        "damian-t6": Path(root) / "damian" / "T6" / "chillguys",
    }
    missing = [str(path) for path in peers.values() if not path.is_file()]
    if missing:
        return f"no program at {', '.join(missing)}"
    player = str(Path(sys.executable).parent / "penguins-player")
    teams = [
        {"name": name, "dir": _empty(folder, name), "command": [str(path)]}
        for name, path in peers.items()
    ]
    teams += [
        {"name": f"ours-{n}", "dir": _empty(folder, f"ours-{n}"),
         "command": [player, "strategy=alphabeta", f"id=ours-{n}"]}
        for n in (1, 2)
    ]  # fmt: skip
    settings = {"name": "penguins-peers", "game": "penguins", "games_per_pair": games,
                "rows": 8, "cols": 8, "call_seconds": 2}  # fmt: skip
    return settings, teams


def fish_class(folder: Path, games: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    root = os.environ.get("FISH_PEER")
    if not root:
        return "FISH_PEER is not set"
    client = Path(root) / "_build" / "default" / "src" / "test" / "integration" / "xclient.exe"
    if not client.is_file():
        return f"no program at {client}"
    teams: list[dict[str, Any]] = [
        {"name": f"ocaml-{n}", "dir": _empty(folder, f"ocaml-{n}"),
         "command": [str(client), "1", "{port}", "{host}"]}
        for n in (1, 2)
    ]  # fmt: skip
    teams += [{"name": "ours-greedy", "builtin": "greedy"},
              {"name": "ours-minimax2", "builtin": "minimax2"}]  # fmt: skip
    settings = {"name": "fish-peers", "game": "fish", "players_per_game": 2,
                "games_per_pair": games, "rows": 6, "cols": 6, "holes": 4,
                "call_seconds": 3, "match_seconds": 120}  # fmt: skip
    return settings, teams


def labyrinth_class(folder: Path, games: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    root = os.environ.get("CGS_DIR")
    if not root:
        return "CGS_DIR is not set"
    api = [
        Path(root) / "GameAPI" / "GameAPI.c",
        Path(root) / "Labyrinth" / "API" / "labyrinthAPI.c",
    ]
    missing = [str(path) for path in api if not path.is_file()]
    if missing:
        return f"no C API at {', '.join(missing)}"
    includes = [f"-I{path.parent}" for path in api]
    teams: list[dict[str, Any]] = []
    for n in (1, 2):
        name = _empty(folder, f"c-api-{n}")
        binary = folder / name / "client"
        subprocess.run(
            ["gcc", "-std=c99", "-D_GNU_SOURCE", "-O2", "-w", *includes, "-o", str(binary),
             str(C_CLIENT), *map(str, api)],
            check=True,
        )  # fmt: skip
        teams.append({"name": name, "dir": name,
                      "command": ["./client", "{host}", "{port}", "{name}", ""]})  # fmt: skip
    teams += [{"name": "ours-astar", "builtin": "astar"},
              {"name": "ours-rotator", "builtin": "rotator"}]  # fmt: skip
    settings = {"name": "labyrinth-peers", "game": "labyrinth", "games_per_pair": games,
                "match_seconds": 300, "call_seconds": 10}  # fmt: skip
    return settings, teams


CLASSES = {"penguins": penguins_class, "fish": fish_class, "labyrinth": labyrinth_class}


def run_class(game: str, folder: Path, games: int, concurrency: int) -> dict[str, Any] | str:
    """Run ``game``'s class of peers in ``folder``: results.json's data plus ``seconds``, or
    why it was skipped."""
    from arena.tournament.cli import main
    from server.sandbox import check_available

    made = CLASSES[game](folder, games)
    if isinstance(made, str):
        return made
    settings, teams = made
    path = write_teams(folder, settings, teams)
    out = folder / "out"
    mode = "bwrap" if check_available() is None else "none"
    argv = [str(path), "--out", str(out), "--concurrency", str(concurrency), "--sandbox", mode]
    began = time.perf_counter()
    code = main(argv)
    seconds = time.perf_counter() - began
    if code != 0:
        return f"arena tournament exited {code}"
    data: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    data["seconds"] = seconds
    data["out"] = str(out)
    return data


def report(game: str, data: dict[str, Any]) -> None:
    rows = []
    for row in data["teams"]:
        reasons = Counter(f["reason"] for f in row["failures"])
        failures = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "-"
        rows.append([row["rank"], row["team"], f"{row['points']:g}",
                     f"{row['wins']}/{row['draws']}/{row['losses']}", failures])  # fmt: skip
    matches = len(data["matches"])
    rate = matches / data["seconds"] * 60
    title = f"{game}: {matches} matches in {data['seconds']:.0f} s ({rate:.1f}/min)"
    title += f", complete={data['complete']}"
    print_table(title, ["rank", "team", "points", "W/D/L", "failures"], rows, width=100)
    for match in data["matches"]:
        for failure in match["failures"]:
            print(f"  {match['name']}: {failure['team']} {failure['reason']}: "
                  f"{failure['detail']}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament_peers")
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help=f"any of {', '.join(GAMES)} (default: all)"
    )
    parser.add_argument("--games-per-pair", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args(argv)
    unknown = [game for game in args.games if game not in GAMES]
    if unknown:
        parser.error(f"game {unknown[0]!r}: expected any of {', '.join(GAMES)}")
    for game in args.games or GAMES:
        with tempfile.TemporaryDirectory(prefix=f"peers-{game}-") as scratch:
            data = run_class(game, Path(scratch), args.games_per_pair, args.concurrency)
            if isinstance(data, str):
                print(f"{game}: skipped: {data}")
                continue
            report(game, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
